package io.tierroute.sim.trace;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Mooncake (FAST'25) JSONL: {@code {"timestamp": ms, "input_length": n, "output_length": n,
 * "hash_ids": [...]}}, one id per 512-token block of the prompt (the last may be partial), so
 * {@code len(hash_ids) == ceil(input_length / 512)}; records sorted by timestamp. Arrivals count from the first
 * record's timestamp (as the Azure reader's do), within {@link TraceRecord#MAX_SPAN_MICROS} of it: a trace stamped in
 * epoch milliseconds replays as one stamped from 0.
 */
public final class MooncakeReader implements TraceReader {

    private static final int BLOCK = 512;
    /** The largest stamp whose microseconds fit a long. */
    private static final long MAX_MS = Long.MAX_VALUE / 1000;

    private long originMs = -1; // the first record's timestamp
    private long lastMs;

    @Override
    public int blockSize() {
        return BLOCK;
    }

    @Override
    public TraceRecord parse(String line, TraceRecord previous) {
        JsonNode n = JsonLine.object(line);
        long ms = JsonFields.integer(n, "timestamp", 0, MAX_MS, " (ms)");
        int in = (int) JsonFields.integer(n, "input_length", 1, TraceRecord.MAX_TOKENS, "");
        // 0 is allowed, as before: replay runs it with one output token
        int out = (int) JsonFields.integer(n, "output_length", 0, TraceRecord.MAX_TOKENS, "");
        long[] ids = JsonFields.ids(n, "hash_ids");
        int blocks = (in + BLOCK - 1) / BLOCK;
        if (ids.length != blocks) {
            throw new IllegalArgumentException("field 'hash_ids' must hold one id per " + BLOCK
                    + "-token block of input_length " + in + " (" + blocks + "), got " + ids.length);
        }
        if (previous == null || originMs < 0) {
            originMs = ms;
        } else if (ms < lastMs) {
            throw new IllegalArgumentException("not sorted by time: timestamp " + ms
                    + " is earlier than the previous record's " + lastMs);
        } else if ((ms - originMs) * 1000 > TraceRecord.MAX_SPAN_MICROS) {
            throw BadField.of("field 'timestamp'", "within 366 days (" + TraceRecord.MAX_SPAN_MICROS / 1000
                    + " ms) of the first record's, " + originMs, Long.toString(ms));
        }
        lastMs = ms;
        return new TraceRecord((ms - originMs) * 1000, in, out, ids);
    }
}
