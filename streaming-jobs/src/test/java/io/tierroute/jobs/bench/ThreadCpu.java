package io.tierroute.jobs.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time of this JVM's Java threads, summed by what they run (a Flink task by its operator chain's
 * name, the Kafka broker, the clients, ...), so the benchmark can say where the µs per record go; what
 * the process spent outside Java threads (JIT compiler, GC, VM) is the remainder.
 */
final class ThreadCpu {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final String[][] GROUPS = {
        {"fit, gate", "fit task"},
        {"join decisions", "join task"},
        {"Source: decisions", "decisions source task"},
        {"Source: completions", "completions source task"},
        {"Source: telemetry", "telemetry source task"},
        {"Source Data Fetcher", "Kafka fetchers"},
        {"AsyncOperations", "checkpoint async"},
        {"forest-trainer", "forest training"},
        {"kafka-producer-network-thread", "Kafka producers"},
        {"data-plane", "broker"},
        {"kafka-", "broker"},
        {"quorum", "broker"},
        {"group-coordinator", "broker"},
        {"TxnMarker", "broker"},
        {"transaction", "broker"},
    };

    private ThreadCpu() {}

    /**
     * Bytes allocated so far per group of live threads (HotSpot's per-thread allocation counters): the
     * garbage behind the "JIT, GC, VM" share, and unlike CPU time it does not move with other users' load.
     */
    static Map<String, Long> allocatedByGroup() {
        var threads = (com.sun.management.ThreadMXBean) THREADS;
        Map<String, Long> m = new TreeMap<>();
        long[] ids = THREADS.getAllThreadIds();
        ThreadInfo[] infos = THREADS.getThreadInfo(ids);
        long[] bytes = threads.getThreadAllocatedBytes(ids);
        for (int i = 0; i < ids.length; i++) {
            if (infos[i] != null && bytes[i] > 0) {
                m.merge(group(infos[i].getThreadName()), bytes[i], Long::sum);
            }
        }
        return m;
    }

    /** Bytes allocated per record per group between two snapshots, and their total. */
    static Map<String, String> bytesPerRecord(Map<String, Long> from, Map<String, Long> to, double records) {
        Map<String, String> out = new LinkedHashMap<>();
        double sum = 0;
        for (Map.Entry<String, Long> e : to.entrySet()) {
            double b = e.getValue() - from.getOrDefault(e.getKey(), 0L);
            sum += b;
            out.put(e.getKey(), String.format("%.0f", b / records));
        }
        out.put("total", String.format("%.0f", sum / records));
        return out;
    }

    /** Nanoseconds of CPU so far per group of live threads. */
    static Map<String, Long> byGroup() {
        Map<String, Long> m = new TreeMap<>();
        long[] ids = THREADS.getAllThreadIds();
        ThreadInfo[] infos = THREADS.getThreadInfo(ids);
        for (int i = 0; i < ids.length; i++) {
            long ns = THREADS.getThreadCpuTime(ids[i]);
            if (infos[i] != null && ns > 0) {
                m.merge(group(infos[i].getThreadName()), ns, Long::sum);
            }
        }
        return m;
    }

    private static String group(String thread) {
        for (String[] g : GROUPS) {
            if (thread.startsWith(g[0])) {
                return g[1];
            }
        }
        return "other Java threads";
    }

    /**
     * µs per record per group between two snapshots; a thread that ended in between loses its time, so the
     * "JIT, GC, VM and ended threads" remainder = process CPU − the groups.
     */
    static Map<String, String> perRecord(Map<String, Long> from, Map<String, Long> to, double processCpuSeconds,
            double records) {
        Map<String, String> out = new LinkedHashMap<>();
        double sum = 0;
        for (Map.Entry<String, Long> e : to.entrySet()) {
            double ns = e.getValue() - from.getOrDefault(e.getKey(), 0L);
            sum += ns;
            out.put(e.getKey(), String.format("%.1f", ns / 1e3 / records));
        }
        out.put("JIT, GC, VM, ended threads", String.format("%.1f", (processCpuSeconds * 1e9 - sum) / 1e3 / records));
        return out;
    }
}
