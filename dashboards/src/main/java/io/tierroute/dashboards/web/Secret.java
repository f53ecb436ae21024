package io.tierroute.dashboards.web;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A configured token kept only as its SHA-256 digest; a presented one is hashed and compared with
 * {@link MessageDigest#isEqual} over the fixed 32 bytes, so the time says nothing about the secret.
 * The selector's {@code BearerToken} does the same; DESIGN.md §2 does not let the dashboard depend
 * on selector-runtime, so each module keeps its own.
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

    /** From a SHA-256 digest (32 bytes), as an operator tokens file holds it. */
    static Secret ofDigest(byte[] sha256) {
        if (sha256.length != 32) {
            throw new IllegalArgumentException("a SHA-256 digest has 32 bytes, got " + sha256.length);
        }
        return new Secret(sha256.clone());
    }

    /** Whether both are the digest of the same token (configuration checks only). */
    boolean sameAs(Secret other) {
        return MessageDigest.isEqual(digest, other.digest);
    }

    /**
     * The digest of a presented credential, to compare with {@link #matches(byte[])}: hash it once per
     * request, not once per configured secret (a large header times many operators would be costly).
     */
    static byte[] digestOf(String candidate) {
        return sha256(candidate);
    }

    /** Whether {@code presented} (from {@link #digestOf}) is this secret's digest; constant time. */
    boolean matches(byte[] presented) {
        return MessageDigest.isEqual(digest, presented);
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
