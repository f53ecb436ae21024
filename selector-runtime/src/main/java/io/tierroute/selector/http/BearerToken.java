package io.tierroute.selector.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;

/**
 * One configured bearer token, kept only as its SHA-256 digest. A presented token is hashed and the
 * two digests compared with {@link MessageDigest#isEqual} (constant time over a fixed 32 bytes), so
 * neither the content nor the length of the secret shows in the response time, and the object holds
 * nothing a heap dump or a log line could reveal. The dashboard's {@code Secret} does the same; DESIGN.md §2 does not
 * let the dashboard depend on selector-runtime, so each module keeps its own.
 */
final class BearerToken {

    private final byte[] digest;

    private BearerToken(byte[] digest) {
        this.digest = digest;
    }

    /** The token, or null for null / empty (not configured). */
    static BearerToken of(String token) {
        return token == null || token.isEmpty() ? null : new BearerToken(sha256(token));
    }

    /** Whether {@code credential} (the part after {@code Bearer }) is this token. */
    boolean matches(String credential) {
        return MessageDigest.isEqual(digest, sha256(credential));
    }

    /**
     * The credential of an {@code Authorization: Bearer <token>} header, or null when the header is
     * missing, empty or of another scheme.
     */
    static String credential(String authorization) {
        if (authorization == null) {
            return null;
        }
        String a = authorization.trim();
        if (a.length() <= 7 || !a.substring(0, 7).toLowerCase(Locale.ROOT).equals("bearer ")) {
            return null;
        }
        String c = a.substring(7).trim();
        return c.isEmpty() ? null : c;
    }

    static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    @Override
    public String toString() {
        return "BearerToken[redacted]";
    }
}
