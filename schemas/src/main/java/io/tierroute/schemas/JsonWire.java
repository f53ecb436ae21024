package io.tierroute.schemas;

import java.util.regex.Pattern;

/**
 * The rules of every JSON body tierroute's HTTP APIs take (the selector's, the dashboard's): its encoding, and what a
 * client is told of a body that is not JSON. One copy, so the two boundaries cannot disagree about what they read or
 * say. Plain strings in and out: schemas does not depend on Jackson, whose parser messages the callers pass in.
 */
public final class JsonWire {

    /** A location as Jackson prints it: {@code [Source: REDACTED (`StreamReadFeature…` disabled); line: 1, column: 1]}. */
    private static final Pattern SOURCE_AT = Pattern.compile("\\[Source: [^\\]]*?line: (\\d+), column: (\\d+)]");
    private static final Pattern SOURCE = Pattern.compile("\\s*\\[Source: [^\\]]*]");
    /** "…: enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to allow": a parser switch is the server's business. */
    private static final Pattern FEATURE_HINT = Pattern.compile(":? *\\(?(?:enable|set) `[^`]*`[^)]*?to allow\\)?");
    /** "(1000, from `StreamReadConstraints.getMaxNestingDepth()`)": the limit is the client's, its getter is not. */
    private static final Pattern FROM_GETTER = Pattern.compile(", from `[^`]*`");

    private static final java.lang.invoke.VarHandle LONGS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final long HIGH_BITS = 0x8080808080808080L;
    private static final long LOW_BITS = 0x0101010101010101L;

    private JsonWire() {
    }

    /**
     * Whether the first {@code length} bytes of {@code body} (at least one) are UTF-16 or UTF-32 rather than UTF-8.
     * Jackson guesses those from a body's first bytes and would read them; JSON on the wire is UTF-8 (RFC 8259 §8.1),
     * where a NUL byte cannot occur (JSON escapes it) and FE FF / FF FE are no valid start.
     */
    public static boolean notUtf8(byte[] body, int length) {
        int first = body[0] & 0xff;
        int second = length > 1 ? body[1] & 0xff : -1;
        if ((first == 0xfe && second == 0xff) || (first == 0xff && second == 0xfe)) {
            return true;
        }
        for (int i = 0; i < Math.min(4, length); i++) {
            if (body[i] == 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Why the first {@code length} bytes of {@code body} are not well-formed UTF-8 text a JSON parser may read, or null
     * when they are. Jackson's byte parser reads overlong forms ({@code C0 AF} as "/"), encoded surrogates and code
     * points past U+10FFFF as other, valid-looking characters, and takes a NUL byte for the end of the input (what
     * follows it is never read): each would be an id or a name the client did not send. Well-formed is Unicode's table
     * 3-7 (RFC 3629); a NUL cannot occur in JSON text, which escapes it as {@code \u0000}.
     */
    public static String utf8Problem(byte[] body, int length) {
        int i = 0;
        while (i < length) {
            // ASCII without a NUL, eight bytes at a time: nearly every body is all of it, and this runs on each route.
            while (i + Long.BYTES <= length) {
                long w = (long) LONGS.get(body, i);
                if ((w & HIGH_BITS) != 0 || ((w - LOW_BITS) & ~w & HIGH_BITS) != 0) {
                    break; // a byte >= 0x80, or a zero byte, in this word
                }
                i += Long.BYTES;
            }
            if (i >= length) {
                break;
            }
            int b = body[i] & 0xff;
            if (b != 0 && b < 0x80) {
                i++;
                continue;
            }
            if (b == 0) {
                return "a NUL byte at offset " + i + " (JSON text escapes it as \\u0000)";
            }
            int n;
            int lo = 0x80;
            int hi = 0xbf;
            if (b >= 0xc2 && b <= 0xdf) {
                n = 1;
            } else if (b >= 0xe0 && b <= 0xef) {
                n = 2;
                lo = b == 0xe0 ? 0xa0 : 0x80; // E0 80..9F: overlong
                hi = b == 0xed ? 0x9f : 0xbf; // ED A0..BF: a surrogate
            } else if (b >= 0xf0 && b <= 0xf4) {
                n = 3;
                lo = b == 0xf0 ? 0x90 : 0x80; // F0 80..8F: overlong
                hi = b == 0xf4 ? 0x8f : 0xbf; // F4 90..: past U+10FFFF
            } else {
                return String.format(java.util.Locale.ROOT, "byte 0x%02X at offset %d is not UTF-8", b, i);
            }
            for (int k = 1; k <= n; k++) {
                int c = i + k < length ? body[i + k] & 0xff : -1;
                if (c < (k == 1 ? lo : 0x80) || c > (k == 1 ? hi : 0xbf)) {
                    return String.format(java.util.Locale.ROOT, "the bytes at offset %d are not well-formed UTF-8 "
                            + "(an overlong form, a surrogate, past U+10FFFF or cut short)", i);
                }
            }
            i += n + 1;
        }
        return null;
    }

    /**
     * The answer to a body the JSON parser refused: {@code malformed JSON at line L, column C: WHAT}, WHAT being the
     * parser's first line in the client's terms. Jackson's own text names its input source ({@code [Source: REDACTED
     * (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 1]}, inside "start marker at" and
     * "for Object starting at"), its feature switches and its limits' getters: the positions stay, as "line L, column
     * C", the rest goes.
     *
     * @param parserMessage the parser's message without its location (Jackson's {@code getOriginalMessage()}), or null
     * @param line          the line where the parser stopped, 1-based; 0 or less when unknown
     * @param column        its column, 1-based
     */
    public static String malformed(String parserMessage, int line, int column) {
        String what = parserMessage == null ? "" : parserMessage.lines().findFirst().orElse("");
        what = SOURCE_AT.matcher(what).replaceAll("line $1, column $2");
        what = SOURCE.matcher(what).replaceAll("");
        what = FEATURE_HINT.matcher(what).replaceAll(" (not valid JSON)");
        what = FROM_GETTER.matcher(what).replaceAll("").strip();
        String where = line > 0 ? " at line " + line + ", column " + column : "";
        return "malformed JSON" + where + (what.isEmpty() ? "" : ": " + what);
    }
}
