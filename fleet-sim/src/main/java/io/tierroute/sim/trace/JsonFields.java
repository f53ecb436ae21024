package io.tierroute.sim.trace;

import com.fasterxml.jackson.databind.JsonNode;

/** Typed fields of a JSON trace record: a wrong type or range fails naming the field, never defaults to 0. */
final class JsonFields {

    private JsonFields() {}

    /** The integer field {@code name}, in [min, max] ({@code unit} shown after the expectation). */
    static long integer(JsonNode record, String name, long min, long max, String unit) {
        JsonNode v = require(record, name);
        // canConvertToLong alone would accept 3.7 (truncated) and "12" is text, not a number
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < min || v.asLong() > max) {
            throw BadField.of("field '" + name + "'", BadField.integer(min, max) + unit, v.toString());
        }
        return v.asLong();
    }

    /** The array field {@code name} of non-negative integer ids. */
    static long[] ids(JsonNode record, String name) {
        JsonNode v = require(record, name);
        String must = "an array of non-negative integer ids";
        if (!v.isArray()) {
            throw BadField.of("field '" + name + "'", must, v.toString());
        }
        long[] ids = new long[v.size()];
        for (int i = 0; i < ids.length; i++) {
            JsonNode id = v.get(i);
            if (!id.isIntegralNumber() || !id.canConvertToLong() || id.asLong() < 0) {
                throw BadField.of("field '" + name + "'", must, id + " at index " + i);
            }
            ids[i] = id.asLong();
        }
        return ids;
    }

    private static JsonNode require(JsonNode record, String name) {
        JsonNode v = record.get(name);
        if (v == null || v.isNull()) {
            throw new IllegalArgumentException("missing field '" + name + "'");
        }
        return v;
    }
}
