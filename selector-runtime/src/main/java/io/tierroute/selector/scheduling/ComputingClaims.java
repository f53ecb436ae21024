package io.tierroute.selector.scheduling;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The computing claims ({@code Selector#claimComputing}) of requests that have produced no output yet, by request id,
 * so that one that fails first (a {@code failed} event; its client hanging up once admitted) withdraws its own claims
 * instead of showing its worker holding a prefix nobody computes until {@code computingClaimTtl}. A first output (or a
 * finish) means the prefill ran: the blocks were computed, the engine's events speak for them, the claim is forgotten.
 * Bounded: a claim is forgotten once its TTL has passed (the index has dropped it by then), and at most
 * {@link #MAX_BLOCKS} hashes are kept; a claim past that is not remembered and only lapses at its TTL, as before.
 */
final class ComputingClaims {

    /** What {@code IndexWriter.routed} was given, to give {@code released} the same. */
    record Claim(int worker, long[] hashes, long nowNanos, long ttlNanos) {}

    /** 32 MiB of hashes: the claims of 16,384 prompts of 256 blocks waiting for their first token. */
    static final long MAX_BLOCKS = 1L << 22;

    private final ConcurrentHashMap<String, Claim> byRequest = new ConcurrentHashMap<>();
    private final AtomicLong blocks = new AtomicLong();

    void made(String requestId, Claim claim) {
        if (blocks.addAndGet(claim.hashes().length) > MAX_BLOCKS) {
            blocks.addAndGet(-claim.hashes().length);
            return;
        }
        forgot(byRequest.put(requestId, claim));
    }

    /** The request's claim, no longer remembered; null when it has none (made none, or it is forgotten). */
    Claim take(String requestId) {
        Claim c = byRequest.remove(requestId);
        forgot(c);
        return c;
    }

    /** Forgets the claims whose TTL has passed. */
    void expire(long nowNanos) {
        for (Map.Entry<String, Claim> e : byRequest.entrySet()) {
            Claim c = e.getValue();
            if (nowNanos - c.nowNanos() >= c.ttlNanos() && byRequest.remove(e.getKey(), c)) {
                forgot(c);
            }
        }
    }

    private void forgot(Claim c) {
        if (c != null) {
            blocks.addAndGet(-c.hashes().length);
        }
    }
}
