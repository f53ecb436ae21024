package io.tierroute.selector.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;

import java.io.IOException;
import java.math.BigInteger;
import java.util.Arrays;

/**
 * Reads a list of 64-bit block hashes, each a JSON integer (signed 64-bit, or unsigned up to
 * 2⁶⁴−1, as engines written in Rust or Python emit them) or a hex string {@code "0x…"}.
 * Allocation: the result only (a per-thread scratch array collects the values).
 */
final class HashArrayDeserializer extends StdDeserializer<long[]> {
    private static final long serialVersionUID = 1L;

    private static final ThreadLocal<long[]> SCRATCH = ThreadLocal.withInitial(() -> new long[1024]);
    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

    HashArrayDeserializer() {
        super(long[].class);
    }

    @Override
    public long[] deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            throw MismatchedInputException.from(p, long[].class,
                    "block hashes must be a list of integers or \"0x…\" hex strings");
        }
        long[] out = SCRATCH.get();
        int n = 0;
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (n == out.length) {
                out = Arrays.copyOf(out, n * 2);
                SCRATCH.set(out);
            }
            out[n] = hash(p, t, n);
            n++;
        }
        return Arrays.copyOf(out, n);
    }

    /** One hash at the parser's current token; {@code index} names it in errors (-1: not in a list). */
    private static final java.util.regex.Pattern HEX = java.util.regex.Pattern.compile("0[xX][0-9a-fA-F]{1,16}");

    static long hash(JsonParser p, JsonToken t, int index) throws IOException {
        if (t == JsonToken.VALUE_NUMBER_INT) {
            if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                BigInteger b = p.getBigIntegerValue();
                if (b.signum() < 0 || b.compareTo(TWO_64) >= 0) {
                    throw MismatchedInputException.from(p, long[].class,
                            "block hash" + at(index) + " out of the 64-bit range: " + b);
                }
                return b.longValue();
            }
            return p.getLongValue();
        }
        if (t == JsonToken.VALUE_STRING) {
            String s = p.getText();
            // parseUnsignedLong alone would also take a sign ("0x+f") and non-ASCII digits ("0x١"): ASCII hex only.
            if (HEX.matcher(s).matches()) {
                try {
                    return Long.parseUnsignedLong(s.substring(2), 16);
                } catch (NumberFormatException ignored) {
                    // reported below
                }
            }
            throw MismatchedInputException.from(p, long[].class,
                    "block hash" + at(index) + " must be an integer or a \"0x…\" hex string of at most 16 digits, got \"" + s + "\"");
        }
        throw MismatchedInputException.from(p, long[].class,
                "block hash" + at(index) + " must be an integer or a \"0x…\" hex string, got " + describe(t));
    }

    private static String at(int index) {
        return index < 0 ? "" : " [" + index + "]";
    }

    private static String describe(JsonToken t) {
        return switch (t) {
            case VALUE_NUMBER_FLOAT -> "a fractional number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            case START_OBJECT -> "an object";
            case START_ARRAY -> "a list";
            default -> t.toString();
        };
    }

    /** A single hash ({@code parent_hash}). */
    static final class Single extends StdDeserializer<Long> {
        private static final long serialVersionUID = 1L;

        Single() {
            super(Long.class);
        }

        @Override
        public Long deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            return hash(p, p.currentToken(), -1);
        }
    }
}
