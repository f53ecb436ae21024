package io.tierroute.sim.policy.peers.dynamo;

import java.util.HashMap;
import java.util.Map;

/**
 * The router's own bookkeeping of what it sent where (Dynamo {@code sequences/}): per worker, the
 * prompt tokens still to prefill (a request counts until its first token) and the KV blocks its
 * in-flight requests occupy (until they finish), with blocks shared between in-flight requests
 * counted once, by chained hash, as Dynamo's {@code ActiveSequences} does. A request's trailing
 * partial block is its own.
 *
 * <p>Decode blocks do not grow with generated tokens here: the simulator's contract tells a router of
 * a request's first token and its end, not of every token. Single-threaded, like the simulator.
 */
final class ActiveSequences {

    private record Active(int worker, long[] hashes, int blocks, int tailBlocks, long prefillTokens) {}

    private final long[] prefillTokens;
    private final long[] tailBlocks;
    private final HashMap<Long, Integer>[] shared;
    private final Map<String, Active> byRequest = new HashMap<>();
    private final Map<String, Active> prefilling = new HashMap<>();

    @SuppressWarnings("unchecked")
    ActiveSequences(int workers) {
        this.prefillTokens = new long[workers];
        this.tailBlocks = new long[workers];
        this.shared = new HashMap[workers];
        for (int w = 0; w < workers; w++) {
            shared[w] = new HashMap<>();
        }
    }

    /** Prompt tokens of {@code worker}'s in-flight requests that have not produced their first token. */
    long activePrefillTokens(int worker) {
        return prefillTokens[worker];
    }

    /** Distinct KV blocks held by {@code worker}'s in-flight requests. */
    long activeBlocks(int worker) {
        return shared[worker].size() + tailBlocks[worker];
    }

    /** Blocks of a request that {@code worker}'s in-flight requests do not already hold. */
    long newBlocks(int worker, long[] hashes, int blocks, int tailBlocks) {
        HashMap<Long, Integer> s = shared[worker];
        long fresh = tailBlocks;
        if (s.isEmpty()) {
            return fresh + blocks;
        }
        for (int i = 0; i < blocks; i++) {
            if (!s.containsKey(hashes[i])) {
                fresh++;
            }
        }
        return fresh;
    }

    /** The request was sent to {@code worker}; {@code prefillTokens} is what the router expects it to compute. */
    void add(String id, int worker, long[] hashes, int blocks, int tail, long prefill) {
        Active a = new Active(worker, hashes, blocks, tail, prefill);
        if (byRequest.put(id, a) != null) {
            throw new IllegalStateException("request " + id + " routed twice");
        }
        prefilling.put(id, a);
        prefillTokens[worker] += prefill;
        tailBlocks[worker] += tail;
        HashMap<Long, Integer> s = shared[worker];
        for (int i = 0; i < blocks; i++) {
            s.merge(hashes[i], 1, Integer::sum);
        }
    }

    /** The request's first token: its prefill no longer loads the worker. */
    void firstToken(String id) {
        Active a = prefilling.remove(id);
        if (a != null) {
            prefillTokens[a.worker()] -= a.prefillTokens();
        }
    }

    /** The request finished: its blocks leave the worker's active set. */
    void finish(String id) {
        firstToken(id); // a request that fails before its first token frees its prefill too
        Active a = byRequest.remove(id);
        if (a == null) {
            return;
        }
        tailBlocks[a.worker()] -= a.tailBlocks();
        HashMap<Long, Integer> s = shared[a.worker()];
        for (int i = 0; i < a.blocks(); i++) {
            s.computeIfPresent(a.hashes()[i], (k, v) -> v == 1 ? null : v - 1);
        }
    }
}
