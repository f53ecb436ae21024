package io.tierroute.dashboards.web;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A configured token kept only as its SHA-256 digest; a presented one is hashed and compared with
 * {@link MessageDigest#isEqual} over the fixed 32 bytes, so the time says nothing about the secret.
 */
final class Secret {

    private final byte[] digest;

    private Secret(byte[] digest) {
        this.digest = digest;
    }

    /** Null for a null or empty token (not configured). */
    static Secret of(String token) {
        return token == null || token.isEmpty() ? null : new Secret(sha256(token));
    }

    boolean matches(String candidate) {
        return MessageDigest.isEqual(digest, sha256(candidate));
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    @Override
    public String toString() {
        return "Secret[redacted]";
    }
}
