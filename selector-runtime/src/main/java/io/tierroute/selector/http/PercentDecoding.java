package io.tierroute.selector.http;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CoderResult;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;

/**
 * Strict percent-decoding of the request target (RFC 3986 §2.1, UTF-8). A valid target decodes exactly as Undertow's
 * own decoder ({@code URLUtils.decode}) decoded it before the listener stopped decoding ({@link RequestTarget}); an
 * escape that is not UTF-8, which Undertow turned into U+FFFD and routed on, is a 400 that names it.
 */
final class PercentDecoding {

    private PercentDecoding() {
    }

    /**
     * {@code raw} decoded. In a path ({@code query} false) '+' stays a plus and {@code %2F} and {@code %5C} stay
     * encoded (Undertow's default: an encoded slash is no path separator); in a query or path parameter ({@code query}
     * true) '+' is a space and every escape is decoded.
     *
     * @param what what {@code raw} is, for the message ("the path", "query parameter 'x'")
     * @throws ApiError 400 naming {@code what}, the bad escape and where it is
     */
    static String decode(String raw, boolean query, String what) {
        if (raw.indexOf('%') < 0 && (!query || raw.indexOf('+') < 0)) {
            return raw;
        }
        int len = raw.length();
        byte[] bytes = new byte[len]; // the parser lets only ASCII into a target: one byte per character at most
        int[] from = new int[len]; // where in raw each byte came from, to name a bad one
        int n = 0;
        for (int i = 0; i < len; ) {
            char c = raw.charAt(i);
            if (c > 0x7f) {
                throw bad(what, raw, i, i + 1, "an unescaped non-ASCII character");
            }
            if (c != '%') {
                from[n] = i;
                bytes[n++] = (byte) (query && c == '+' ? ' ' : c);
                i++;
                continue;
            }
            int hi = i + 2 < len ? hex(raw.charAt(i + 1)) : -1;
            int lo = i + 2 < len ? hex(raw.charAt(i + 2)) : -1;
            if (hi < 0 || lo < 0) {
                throw bad(what, raw, i, Math.min(i + 3, len), "a '%' must be followed by two hex digits");
            }
            if (!query && ((hi == 2 && lo == 0xf) || (hi == 5 && lo == 0xc))) {
                for (int k = i; k < i + 3; k++) { // kept as the client wrote it, as Undertow kept it
                    from[n] = i;
                    bytes[n++] = (byte) raw.charAt(k);
                }
            } else {
                from[n] = i;
                bytes[n++] = (byte) (hi << 4 | lo);
            }
            i += 3;
        }
        CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder(); // reports malformed input, replaces nothing
        ByteBuffer in = ByteBuffer.wrap(bytes, 0, n);
        CharBuffer out = CharBuffer.allocate(n);
        CoderResult r = utf8.decode(in, out, true);
        if (r.isError()) {
            int first = from[in.position()];
            int last = from[in.position() + r.length() - 1];
            throw bad(what, raw, first, last + (raw.charAt(last) == '%' ? 3 : 1),
                    "percent-encode the UTF-8 bytes of every character, as encodeURIComponent does");
        }
        utf8.flush(out);
        return out.flip().toString();
    }

    private static int hex(char c) {
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    }

    private static ApiError bad(String what, String raw, int from, int to, String hint) {
        String shown = raw.length() > 200 ? raw.substring(0, 200) + "…" : raw;
        return new ApiError(400, what + " is not valid percent-encoded UTF-8: '" + raw.substring(from, to)
                + "' at character " + (from + 1) + " of '" + shown + "' (" + hint + ")");
    }
}
