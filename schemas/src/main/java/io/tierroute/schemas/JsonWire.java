package io.tierroute.schemas;

/**
 * The encoding rule of every JSON body tierroute's HTTP APIs take (the selector's, the dashboard's): one rule, so the
 * two boundaries cannot disagree about what they read.
 */
public final class JsonWire {

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
}
