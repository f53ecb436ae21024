package io.tierroute.sim.trace;

import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.workload.RequestFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns trace records into the simulator's requests.
 *
 * <ul>
 *   <li><b>Equal timestamps</b> (Mooncake has millisecond stamps, many shared) are spread evenly over
 *       the gap to the next distinct timestamp: k records at t with the next at t' arrive at
 *       {@code t + i·(t' − t)/k}. A final group keeps its stamp. A limit cuts the spread trace, so the
 *       first N requests arrive as they do in the whole replay.</li>
 *   <li><b>Blocks.</b> A trace's block ids are used as given (its block size must be the engine's);
 *       a trace without ids (Azure) gets fresh ids per request, so nothing is shared.</li>
 *   <li><b>Lengths.</b> Output = the trace's output length (at least 1);
 *       {@code max_tokens = max(output, defaultMaxTokens)}, as clients send a generous limit.</li>
 * </ul>
 */
public final class TraceReplay {

    /** The {@code max_tokens} a replayed request carries unless its output is longer. */
    public static final int DEFAULT_MAX_TOKENS = 4096;

    private TraceReplay() {}

    /** Reads {@code file} in {@code format} and replays it (at most {@code limit} requests; ≤ 0 = all). */
    public static List<SimRequest> load(Path file, TraceFormat format, RequestFactory factory, int limit) {
        TraceReader reader = format.newReader();
        if (reader.blockSize() > 0 && reader.blockSize() != factory.blockSize()) {
            throw new IllegalArgumentException(format + " traces name " + reader.blockSize()
                    + "-token blocks; run the engines with block size " + reader.blockSize() + ", not " + factory.blockSize());
        }
        List<TraceRecord> records = reader.read(file);
        // Spread over the whole trace, then cut: cut first, the group the limit splits would look like the trace's
        // last and keep its one stamp, a burst the trace does not have.
        long[] arrivals = spread(records);
        int n = limit > 0 ? Math.min(limit, records.size()) : records.size();
        return toRequests(records, arrivals, n, factory, file.getFileName().toString());
    }

    public static List<SimRequest> toRequests(List<TraceRecord> records, RequestFactory factory, String prefix) {
        return toRequests(records, spread(records), records.size(), factory, prefix);
    }

    private static List<SimRequest> toRequests(List<TraceRecord> records, long[] arrivals, int n, RequestFactory factory,
            String prefix) {
        List<SimRequest> out = new ArrayList<>(n);
        long freshId = 1L << 48;
        for (int i = 0; i < n; i++) {
            TraceRecord t = records.get(i);
            long[] ids = t.blockIds();
            int full = t.inputTokens() / factory.blockSize();
            if (ids == null || ids.length < full) {
                long[] own = new long[full];
                int given = ids == null ? 0 : ids.length;
                for (int b = 0; b < full; b++) {
                    own[b] = b < given ? ids[b] : freshId++;
                }
                ids = own;
            }
            int output = Math.max(1, t.outputTokens());
            out.add(factory.request(prefix + "#" + i, arrivals[i], t.inputTokens(), ids,
                    Math.max(output, DEFAULT_MAX_TOKENS), output, null));
        }
        return out;
    }

    /**
     * Arrival times with equal stamps spread over the gap to the next distinct one. The records must be
     * sorted (the readers refuse a file that is not, naming the line): unsorted, a group would be spread
     * backwards.
     */
    static long[] spread(List<TraceRecord> records) {
        int n = records.size();
        for (int m = 1; m < n; m++) {
            if (records.get(m).arrivalMicros() < records.get(m - 1).arrivalMicros()) {
                throw new IllegalArgumentException("records are not sorted by time: record " + m
                        + " arrives before record " + (m - 1));
            }
        }
        long[] out = new long[n];
        int i = 0;
        while (i < n) {
            long t = records.get(i).arrivalMicros();
            int j = i;
            while (j < n && records.get(j).arrivalMicros() == t) {
                j++;
            }
            long gap = j < n ? records.get(j).arrivalMicros() - t : 0;
            int k = j - i;
            for (int m = 0; m < k; m++) {
                out[i + m] = t + gap / k * m + gap % k * m / k; // gap·m/k without the product of two longs
            }
            i = j;
        }
        return out;
    }
}
