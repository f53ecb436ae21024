package io.tierroute.dashboards.web;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Percent-encoding of one path segment, as the page's {@code encodeURIComponent} does it (UTF-8, {@code %XX}). The
 * server routes on the raw path ({@link DashboardServer}), so a scope is decoded here, once. Undertow's own decoding
 * keeps {@code %2F} but decodes {@code %25}: a scope with '/' in it could not be named, and {@code a%2Fb} decoded
 * would be the scope {@code a/b} sent as {@code a%2Fb} or the scope {@code a%2Fb} sent as {@code a%252Fb}.
 */
final class PathSegment {

    private PathSegment() {}

    /** {@code value} as one path segment: every byte but A–Z a–z 0–9 {@code -_.!~*'()} as {@code %XX}. */
    static String encode(String value) {
        StringBuilder out = new StringBuilder(value.length());
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if (c < 0x80 && (Character.isLetterOrDigit(c) || "-_.!~*'()".indexOf(c) >= 0)) {
                out.append(c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return out.toString();
    }

    /**
     * The {@code what} segment {@code raw}, percent-decoded as UTF-8; '+' stays a plus (a path is not a form).
     *
     * @throws HttpError 400 when {@code raw} is not valid percent-encoded UTF-8
     */
    static String decode(String raw, String what) {
        if (raw.indexOf('%') < 0) {
            return raw;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        int i = 0;
        while (i < raw.length()) {
            int escape = raw.indexOf('%', i);
            bytes.writeBytes(raw.substring(i, escape < 0 ? raw.length() : escape).getBytes(StandardCharsets.UTF_8));
            if (escape < 0) {
                break;
            }
            int hi = escape + 1 < raw.length() ? Character.digit(raw.charAt(escape + 1), 16) : -1;
            int lo = escape + 2 < raw.length() ? Character.digit(raw.charAt(escape + 2), 16) : -1;
            if (hi < 0 || lo < 0) {
                throw new HttpError(400, what + " in the path is not valid percent-encoding: '"
                        + raw.substring(escape, Math.min(escape + 3, raw.length())) + "' at character " + (escape + 1)
                        + " of '" + abridged(raw) + "' (a '%' must be followed by two hex digits; encode the name with "
                        + "encodeURIComponent)");
            }
            bytes.write(hi << 4 | lo);
            i = escape + 3;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new HttpError(400, what + " in the path, '" + abridged(raw) + "', does not decode as UTF-8");
        }
    }

    /** A segment as quoted in an error: at most 64 characters (a request target may be kilobytes long). */
    private static String abridged(String raw) {
        return raw.length() <= 64 ? raw : raw.substring(0, 64) + "…";
    }
}
