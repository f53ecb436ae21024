package io.tierroute.sim.trace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Mooncake (FAST'25) JSONL: {@code {"timestamp": ms, "input_length": n, "output_length": n,
 * "hash_ids": [...]}}, one id per 512-token block of the prompt (the last may be partial).
 */
public final class MooncakeReader implements TraceReader {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public int blockSize() {
        return 512;
    }

    @Override
    public TraceRecord parse(String line, TraceRecord previous) {
        JsonNode n;
        try {
            n = JSON.readTree(line);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage());
        }
        long ts = require(n, "timestamp").asLong();
        int in = require(n, "input_length").asInt();
        int out = require(n, "output_length").asInt();
        JsonNode ids = require(n, "hash_ids");
        long[] blockIds = new long[ids.size()];
        for (int i = 0; i < blockIds.length; i++) {
            blockIds[i] = ids.get(i).asLong();
        }
        if (ts < 0 || in <= 0 || out < 0) {
            throw new IllegalArgumentException("timestamp must be ≥ 0, input_length > 0, output_length ≥ 0");
        }
        if (ts > Long.MAX_VALUE / 1000 || !require(n, "input_length").canConvertToInt()
                || !require(n, "output_length").canConvertToInt()) {
            throw new IllegalArgumentException("timestamp, input_length or output_length out of range");
        }
        TraceRecord.checkLengths("input_length", in, "output_length", out);
        return new TraceRecord(ts * 1000, in, out, blockIds);
    }

    private static JsonNode require(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            throw new IllegalArgumentException("missing field '" + field + "'");
        }
        return v;
    }
}
