package io.tierroute.dashboards.web;

import io.tierroute.schemas.JsonWire;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;

/** Takes the secret out of an {@code Authorization} header: {@code Bearer <token>} or HTTP Basic's password. */
final class Credentials {

    private Credentials() {}

    /**
     * The request's one {@code Authorization} header, or null; {@link HttpError} 400 when it is given more than once,
     * as the selector answers: which of two credentials counts would be ours to guess (RFC 9110 allows one).
     */
    static String header(io.undertow.server.HttpServerExchange ex) {
        io.undertow.util.HeaderValues all = ex.getRequestHeaders().get(io.undertow.util.Headers.AUTHORIZATION);
        if (all != null && all.size() > 1) {
            throw new HttpError(400, "the Authorization header is given " + all.size() + " times; give it once");
        }
        return all == null ? null : utf8(all.getFirst());
    }

    /**
     * A header value as the client's UTF-8: HTTP/1.1 headers carry bytes, which Undertow reads one character each
     * (ISO-8859-1), while a token in the environment is Java text; a token outside ASCII would otherwise never match.
     * 400 when the bytes are no UTF-8.
     */
    static String utf8(String value) {
        if (value.chars().allMatch(c -> c < 0x80) || value.chars().anyMatch(c -> c > 0xff)) {
            return value; // ASCII, or already decoded text (not the wire's bytes)
        }
        byte[] bytes = value.getBytes(StandardCharsets.ISO_8859_1);
        // The selector's strict check (HeaderText): the two servers take the same bytes as the same token.
        if (JsonWire.utf8Problem(bytes, bytes.length) != null) {
            throw new HttpError(400, "the Authorization header is not UTF-8 text; send the token's UTF-8 bytes");
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** The token of {@code Bearer <token>}, or null (missing, empty, another scheme). */
    static String bearer(String header) {
        return after(header, "bearer ");
    }

    /**
     * The secret in the header: the bearer token, or the password of {@code Basic base64(user:password)}
     * (what a browser sends after its login prompt; the user name is ignored). Null when there is none.
     */
    static String any(String header) {
        String b = bearer(header);
        if (b != null) {
            return b;
        }
        String basic = after(header, "basic ");
        if (basic == null) {
            return null;
        }
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(basic), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
        int colon = decoded.indexOf(':');
        String password = colon < 0 ? "" : decoded.substring(colon + 1);
        return password.isEmpty() ? null : password;
    }

    private static String after(String header, String scheme) {
        if (header == null) {
            return null;
        }
        String h = header.trim();
        if (h.length() <= scheme.length() || !h.substring(0, scheme.length()).toLowerCase(Locale.ROOT).equals(scheme)) {
            return null;
        }
        String v = h.substring(scheme.length()).trim();
        return v.isEmpty() ? null : v;
    }
}
