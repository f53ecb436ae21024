package io.tierroute.selector.http;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A fast path for the common shape of a {@code POST /v1/route} body: ASCII strings without escapes,
 * plain integers, integer lists, booleans and nulls. It accepts a strict subset of what the strict
 * Jackson reader accepts and, for that subset, yields exactly what Jackson would; for anything else
 * (escapes, non-ASCII, {@code agent}, hex hashes, numbers out of range, unknown or duplicate fields,
 * malformed input) it returns null and the caller parses with Jackson, which also writes the error
 * message. Block-hash lists are the bulk of a route body; parsing them here costs a few µs instead
 * of Jackson's ~15 µs for 500 hashes.
 */
final class RouteBodyParser {

    private static final ThreadLocal<long[]> SCRATCH = ThreadLocal.withInitial(() -> new long[1024]);

    private final byte[] b;
    private final int end;
    private int i;

    private RouteBodyParser(byte[] body, int length) {
        this.b = body;
        this.end = length;
    }

    static Bodies.Route tryParse(byte[] body) {
        return tryParse(body, body.length);
    }

    /** The body in {@code body[0, length)} parsed, or null when Jackson must decide (unusual shape or an error). */
    static Bodies.Route tryParse(byte[] body, int length) {
        try {
            return new RouteBodyParser(body, length).route();
        } catch (Fallback | ArrayIndexOutOfBoundsException e) {
            return null;
        }
    }

    /** Thrown to give up and let Jackson parse the body. */
    private static final class Fallback extends RuntimeException {
        private static final long serialVersionUID = 1L;
        static final Fallback INSTANCE = new Fallback();

        private Fallback() {
            super(null, null, false, false);
        }
    }

    private static Fallback fallback() {
        return Fallback.INSTANCE;
    }

    private Bodies.Route route() {
        Bodies.Route r = new Bodies.Route();
        int seen = 0;
        ws();
        expect('{');
        ws();
        if (at(i) == '}') {
            i++;
        } else {
            while (true) {
                int field = field();
                if ((seen & (1 << field)) != 0) {
                    throw fallback(); // duplicate: Jackson reports it
                }
                seen |= 1 << field;
                ws();
                expect(':');
                ws();
                value(r, field);
                ws();
                if (at(i) == ',') {
                    i++;
                    ws();
                    continue;
                }
                expect('}');
                break;
            }
        }
        ws();
        if (i != end) {
            throw fallback();
        }
        return r;
    }

    private static final String[] FIELDS = {"request_id", "model", "lora", "namespace", "text", "input_tokens",
            "max_tokens", "expected_output_tokens", "block_hashes", "token_ids", "explain"};
    private static final byte[][] FIELD_BYTES = new byte[FIELDS.length][];

    static {
        for (int f = 0; f < FIELDS.length; f++) {
            FIELD_BYTES[f] = FIELDS[f].getBytes(StandardCharsets.US_ASCII);
        }
    }

    private int field() {
        expect('"');
        int start = i;
        while (at(i) != '"') {
            if (at(i) == '\\' || at(i) < 0x20) {
                throw fallback();
            }
            i++;
        }
        int len = i - start;
        i++;
        for (int f = 0; f < FIELD_BYTES.length; f++) {
            byte[] name = FIELD_BYTES[f];
            if (name.length == len && Arrays.equals(b, start, i - 1, name, 0, len)) {
                return f;
            }
        }
        throw fallback(); // unknown (or agent): Jackson handles or reports it
    }

    private void value(Bodies.Route r, int field) {
        if (at(i) == 'n') {
            literal("null");
            return; // every field is nullable and null means absent
        }
        switch (field) {
            case 0 -> r.request_id = string();
            case 1 -> r.model = string();
            case 2 -> r.lora = string();
            case 3 -> r.namespace = string();
            case 4 -> r.text = string();
            case 5 -> r.input_tokens = (int) integer(true);
            case 6 -> r.max_tokens = (int) integer(true);
            case 7 -> r.expected_output_tokens = (int) integer(true);
            case 8 -> r.block_hashes = longs(false);
            case 9 -> r.token_ids = ints();
            case 10 -> {
                if (at(i) == 't') {
                    literal("true");
                    r.explain = Boolean.TRUE;
                } else {
                    literal("false");
                    r.explain = Boolean.FALSE;
                }
            }
            default -> throw fallback();
        }
    }

    /** An ASCII string without escapes. */
    private String string() {
        expect('"');
        int start = i;
        byte c;
        while ((c = at(i)) != '"') {
            if (c == '\\' || c < 0x20) { // bytes ≥ 0x80 are negative: non-ASCII goes to Jackson too
                throw fallback();
            }
            i++;
        }
        String s = new String(b, start, i - start, StandardCharsets.ISO_8859_1);
        i++;
        return s;
    }

    /** A JSON integer that fits in an int ({@code asInt}) or a long; no fraction, exponent or leading zero. */
    private long integer(boolean asInt) {
        boolean neg = false;
        if (at(i) == '-') {
            neg = true;
            i++;
        }
        int start = i;
        long v = 0;
        byte c;
        while ((c = at(i)) >= '0' && c <= '9') {
            if (i - start >= 18) {
                throw fallback(); // 19+ digits: let Jackson range-check
            }
            v = v * 10 + (c - '0');
            i++;
        }
        int digits = i - start;
        if (digits == 0 || (b[start] == '0' && (digits > 1 || neg)) || c == '.' || c == 'e' || c == 'E') {
            throw fallback();
        }
        v = neg ? -v : v;
        if (asInt && (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE)) {
            throw fallback();
        }
        return v;
    }

    private long[] longs(boolean asInt) {
        expect('[');
        ws();
        long[] buf = SCRATCH.get();
        int n = 0;
        if (at(i) == ']') {
            i++;
            return new long[0];
        }
        while (true) {
            if (n == buf.length) {
                buf = Arrays.copyOf(buf, n * 2);
                SCRATCH.set(buf);
            }
            buf[n++] = integer(asInt);
            ws();
            if (at(i) == ',') {
                i++;
                ws();
                continue;
            }
            expect(']');
            return Arrays.copyOf(buf, n);
        }
    }

    private int[] ints() {
        long[] l = longs(true);
        int[] out = new int[l.length];
        for (int k = 0; k < l.length; k++) {
            out[k] = (int) l[k];
        }
        return out;
    }

    private void literal(String word) {
        for (int k = 0; k < word.length(); k++) {
            if (at(i + k) != word.charAt(k)) {
                throw fallback();
            }
        }
        i += word.length();
    }

    private void expect(char c) {
        if (at(i) != c) {
            throw fallback();
        }
        i++;
    }

    /** The byte at {@code k}; past the body's end the parse defers to Jackson (the array may be longer). */
    private byte at(int k) {
        if (k >= end) {
            throw fallback();
        }
        return b[k];
    }

    private void ws() {
        while (i < end) {
            byte c = at(i);
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return;
            }
            i++;
        }
    }
}
