package io.tierroute.jobs;

import java.util.Map;
import org.apache.flink.api.common.JobID;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;

/** The job's counters as a test's in-memory metric reporter holds them. */
final class JobCounters {
    private JobCounters() {
    }

    /** Sum over subtasks of the counter {@code name} of job {@code id}. */
    static long sum(InMemoryReporter metrics, JobID id, String name) {
        long sum = 0;
        for (Map.Entry<String, Metric> e : metrics.getMetricsByIdentifiers(id).entrySet()) {
            if (e.getKey().endsWith("." + name) && e.getValue() instanceof Counter c) {
                sum += c.getCount();
            }
        }
        return sum;
    }
}
