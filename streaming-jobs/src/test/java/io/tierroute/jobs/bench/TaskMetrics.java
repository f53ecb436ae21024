package io.tierroute.jobs.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.testutils.InMemoryReporter;

/**
 * Flink's own per-subtask figures, read in-process from the MiniCluster's metric registry (an
 * {@link InMemoryReporter}), so the benchmark can say what caps the rate rather than only how much CPU
 * it took: how much of each second every subtask was busy, back-pressured (waiting for an output
 * buffer) or idle (waiting for input), plus the checkpoint alignment, the sources' watermark-alignment
 * drift and the Kafka fetchers' figures.
 *
 * <p>Busy / idle / back-pressured come from the cumulative {@code accumulate*TimeMs} counters, so the
 * window's figure is exact (delta over wall time), not an average of Flink's 1 s-smoothed rates.
 */
final class TaskMetrics {
    /** Cumulative metrics, summed over the window as deltas. */
    private static final String[] CUMULATIVE = {
        "accumulateBusyTimeMs", "accumulateBackPressuredTimeMs", "accumulateIdleTimeMs", "numRecordsIn", "numRecordsOut",
        "numberOfCompletedCheckpoints",
    };
    /** Gauges averaged over the samples of the window (last checkpoint's alignment, source state). */
    private static final String[] SAMPLED = {
        "checkpointAlignmentTime", "checkpointStartDelayNanos", "watermarkAlignmentDrift", "pendingRecords",
        "currentEmitEventTimeLag", "sourceIdleTime", "mailboxQueueSize",
        "fetch-latency-avg", "fetch-size-avg", "records-per-request-avg", "fetch-rate", "records-lag-max",
        "lastCheckpointDuration", "lastCheckpointSize",
    };

    private final InMemoryReporter reporter = InMemoryReporter.create();

    /** Registers the reporter in the job's configuration (before the MiniCluster starts). */
    Configuration addTo(Configuration c) {
        return reporter.addToConfiguration(c);
    }

    /**
     * Current values, keyed "task[subtask] metric" (task = the chain's name shortened to its first
     * operator). Cumulative ones as longs, gauges as doubles; operator-level gauges of a chain are summed
     * per subtask when several operators report the same name (only sources report most of them).
     */
    Map<String, Double> sample() {
        Map<String, Double> out = new TreeMap<>();
        for (Map.Entry<MetricGroup, Map<String, Metric>> g : reporter.getMetricsByGroup().entrySet()) {
            Map<String, String> vars = g.getKey().getAllVariables();
            String task = vars.get("<task_name>");
            String subtask = vars.get("<subtask_index>");
            String key;
            if (task != null && subtask != null) {
                key = shortName(task) + "[" + subtask + "]";
            } else if (vars.containsKey("<job_id>")) {
                key = "job checkpoints"; // the JobManager's checkpoint statistics
            } else {
                continue;
            }
            for (Map.Entry<String, Metric> m : g.getValue().entrySet()) {
                String name = m.getKey();
                if (!wanted(name)) {
                    continue;
                }
                Double v = value(m.getValue());
                if (v != null && !v.isNaN() && !v.isInfinite()) {
                    out.merge(key + " " + name, v, Math::max);
                }
            }
        }
        return out;
    }

    private static boolean wanted(String name) {
        for (String s : CUMULATIVE) {
            if (s.equals(name)) {
                return true;
            }
        }
        for (String s : SAMPLED) {
            if (s.equals(name)) {
                return true;
            }
        }
        return false;
    }

    private static Double value(Metric m) {
        if (m instanceof Counter c) {
            return (double) c.getCount();
        }
        if (m instanceof Gauge<?> g) {
            Object v = g.getValue();
            return v instanceof Number n ? n.doubleValue() : null;
        }
        return null;
    }

    static String shortName(String task) {
        String first = task.split(" -> ")[0];
        return first.startsWith("Source: ") ? first.substring("Source: ".length()) : first;
    }

    /**
     * One line per subtask over the window between two samples: busy / back-pressured / idle in ms per
     * second (the three add up to ≈ 1000), records in and out per second, and the sampled gauges' means.
     */
    static String report(java.util.List<Map<String, Double>> samples, int from, int to, double seconds) {
        Map<String, Double> a = samples.get(from);
        Map<String, Double> b = samples.get(to);
        Map<String, Map<String, String>> rows = new TreeMap<>();
        for (Map.Entry<String, Double> e : b.entrySet()) {
            int sp = e.getKey().lastIndexOf(' ');
            String subtask = e.getKey().substring(0, sp);
            String name = e.getKey().substring(sp + 1);
            Map<String, String> row = rows.computeIfAbsent(subtask, k -> new LinkedHashMap<>());
            if (isCumulative(name)) {
                double d = e.getValue() - a.getOrDefault(e.getKey(), 0.0);
                row.put(label(name), String.format("%.0f", d / seconds));
            } else {
                double sum = 0;
                int n = 0;
                for (int i = from; i <= to; i++) {
                    Double v = samples.get(i).get(e.getKey());
                    if (v != null) {
                        sum += v;
                        n++;
                    }
                }
                row.put(name, String.format(Math.abs(sum / n) >= 100 ? "%.0f" : "%.3g", sum / n));
            }
        }
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, Map<String, String>> r : rows.entrySet()) {
            sb.append(String.format("  %-28s %s%n", r.getKey(), r.getValue()));
        }
        return sb.toString();
    }

    private static boolean isCumulative(String name) {
        for (String s : CUMULATIVE) {
            if (s.equals(name)) {
                return true;
            }
        }
        return false;
    }

    private static String label(String name) {
        return switch (name) {
            case "accumulateBusyTimeMs" -> "busy ms/s";
            case "accumulateBackPressuredTimeMs" -> "backpressured ms/s";
            case "accumulateIdleTimeMs" -> "idle ms/s";
            case "numRecordsIn" -> "in/s";
            case "numRecordsOut" -> "out/s";
            default -> name;
        };
    }
}
