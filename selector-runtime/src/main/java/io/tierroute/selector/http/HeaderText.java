package io.tierroute.selector.http;

import io.tierroute.schemas.JsonWire;
import io.undertow.util.HttpString;

import java.nio.charset.StandardCharsets;

/**
 * A header's value as text the client meant. HTTP/1.1 gives a header's bytes no charset and Undertow reads each byte
 * as one character (ISO-8859-1), so a workflow id sent as UTF-8 in {@code x-agent-workflow-id} arrived as other
 * characters than the same id in a body ({@code "wörk"} as {@code "wÃ¶rk"}): the two disagreed, and the decision
 * record carried an id the agent never used. The bytes are read again as UTF-8, strictly.
 */
final class HeaderText {

    private HeaderText() {
    }

    /** {@code value} (one character per byte) read as UTF-8; a 400 naming the header when its bytes are not UTF-8. */
    static String utf8(HttpString name, String value) {
        int i = 0;
        while (i < value.length() && value.charAt(i) < 0x80) {
            i++;
        }
        if (i == value.length()) {
            return value; // ASCII, as nearly every header is: the same text either way
        }
        byte[] bytes = new byte[value.length()];
        for (int k = 0; k < bytes.length; k++) {
            char c = value.charAt(k);
            if (c > 0xff) { // not from the wire's bytes: an HTTP/2 or programmatic header already decoded
                return value;
            }
            bytes[k] = (byte) c;
        }
        String problem = JsonWire.utf8Problem(bytes, bytes.length);
        if (problem != null) {
            throw new ApiError(400, "header " + name + " is not UTF-8 text: " + problem);
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
