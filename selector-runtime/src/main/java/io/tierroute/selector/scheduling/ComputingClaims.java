package io.tierroute.selector.scheduling;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The computing claims ({@code Selector#claimComputing}) of requests that have produced no output yet, by request id,
 * so that one that fails first (a {@code failed} event; its client hanging up once admitted) withdraws its own claims
 * instead of showing its worker holding a prefix nobody computes until {@code computingClaimTtl}. A first output (or a
 * finish) means the prefill ran: the blocks were computed, the engine's events speak for them, the claim is forgotten.
 *
 * <p>A request routed to a worker while a claim there stood may have been placed by it and claims only past it (nothing,
 * if the claim covered its whole prompt): it is remembered too, with what it claimed, so that the earlier claim is not
 * withdrawn under it ({@link #mayWithdraw}; found in review). Bounded: a claim is forgotten once its TTL has passed (the
 * index has dropped it by then), and at most {@link #MAX_REQUESTS} requests and {@link #MAX_BLOCKS} hashes are kept; a
 * claim past that is not remembered, and until its TTL has passed no claim is withdrawn (it might rely on any), so every
 * claim lapses at its TTL as before claims were withdrawn.
 */
final class ComputingClaims {

    /** What {@code IndexWriter.routed} was given (possibly nothing), to give {@code released} the same. */
    record Claim(int worker, long[] hashes, long nowNanos, long ttlNanos) {}

    /** 32 MiB of hashes: the claims of 16,384 prompts of 256 blocks waiting for their first token. */
    static final long MAX_BLOCKS = 1L << 22;
    /** Requests remembered: 262,144 entries of a few hundred bytes, ≈ 2 s of routes at 100 k/s before their first output. */
    static final int MAX_REQUESTS = 1 << 18;

    private final ConcurrentHashMap<String, Claim> byRequest = new ConcurrentHashMap<>();
    private final AtomicLong blocks = new AtomicLong();
    /** Until then no claim is withdrawn: a claim made before it was not remembered (the bounds above). */
    private final AtomicLong withdrawalsResumeNanos = new AtomicLong(Long.MIN_VALUE);

    void made(String requestId, Claim claim) {
        boolean full = byRequest.size() >= MAX_REQUESTS; // read once: the map may change meanwhile
        if (full || blocks.addAndGet(claim.hashes().length) > MAX_BLOCKS) {
            if (!full) {
                blocks.addAndGet(-claim.hashes().length); // what this call added, and only that
            }
            long until = claim.nowNanos() + claim.ttlNanos();
            withdrawalsResumeNanos.accumulateAndGet(until, (a, b) -> a == Long.MIN_VALUE || b - a > 0 ? b : a);
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

    /**
     * Whether {@code c} (already {@link #take taken}) may be withdrawn at {@code nowNanos}: it claimed something, no
     * other remembered request on its worker was routed at or after it (such a request may have been placed by it and
     * computes its blocks itself; withdrawing it would hide them again), and no claim went unremembered within its TTL.
     * A scan of the remembered claims: failures are rare, claims short-lived.
     */
    boolean mayWithdraw(Claim c, long nowNanos) {
        long resume = withdrawalsResumeNanos.get(); // MIN_VALUE: every claim remembered so far
        if (c.hashes().length == 0 || (resume != Long.MIN_VALUE && nowNanos - resume < 0)) {
            return false;
        }
        for (Claim other : byRequest.values()) {
            if (other.worker() == c.worker() && other.nowNanos() - c.nowNanos() >= 0) {
                return false;
            }
        }
        return true;
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
