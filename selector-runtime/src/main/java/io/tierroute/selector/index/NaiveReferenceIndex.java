package io.tierroute.selector.index;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;

/**
 * The simplest obviously-correct {@link PrefixIndex}: a {@code HashMap<blockHash, holders>} with a
 * {@code Set<worker>} per tier and a map of approximate entries, walked block by block. It is the
 * test oracle of {@link RunPrefixIndex} and the baseline of the benchmarks. It follows the same
 * approximate-mode rule (see {@code package-info.java}), has no cap, and is <b>not</b> safe for
 * concurrent readers and writer (the differential tests drive it from one thread).
 */
public final class NaiveReferenceIndex implements PrefixIndex {

    /** Holdings of one block (sets made on first use, to keep a million-block baseline in memory). */
    private static final class Block {
        @SuppressWarnings("unchecked")
        final Set<Integer>[] real = new Set[Tier.COUNT];
        Map<Integer, Long> approxExpiry = Map.of();

        Set<Integer> tier(int t) {
            if (real[t] == null) {
                real[t] = new HashSet<>(4);
            }
            return real[t];
        }

        Map<Integer, Long> approx() {
            if (approxExpiry.isEmpty()) {
                approxExpiry = new HashMap<>(4);
            }
            return approxExpiry;
        }

        boolean isEmpty() {
            for (Set<Integer> s : real) {
                if (s != null && !s.isEmpty()) {
                    return false;
                }
            }
            return approxExpiry.isEmpty();
        }

        void removeWorker(int worker) {
            for (Set<Integer> s : real) {
                if (s != null) {
                    s.remove(worker);
                }
            }
            if (!approxExpiry.isEmpty()) {
                approxExpiry.remove(worker);
            }
        }

        /** Held on {@code tier} or a faster one, counting unexpired approximate entries as HBM. */
        boolean holds(int worker, int tier, long nowNanos) {
            if (!approxExpiry.isEmpty()) {
                Long exp = approxExpiry.get(worker);
                if (exp != null && exp > nowNanos) {
                    return true;
                }
            }
            for (int t = 0; t <= tier; t++) {
                if (real[t] != null && real[t].contains(worker)) {
                    return true;
                }
            }
            return false;
        }
    }

    private final int workers;
    private final Map<Long, Block> blocks = new HashMap<>();

    public NaiveReferenceIndex(int workers) {
        this.workers = workers;
    }

    @Override
    public void apply(KvEvent event) {
        if (event.worker() < 0 || event.worker() >= workers) {
            throw new IllegalArgumentException("worker " + event.worker() + " outside 0.." + (workers - 1));
        }
        if (event instanceof KvEvent.Stored s) {
            store(s.worker(), s.tier(), s.blockHashes());
        } else if (event instanceof KvEvent.Removed r) {
            remove(r.worker(), r.tier(), r.blockHashes());
        } else if (event instanceof KvEvent.Moved m) {
            remove(m.worker(), m.from(), m.blockHashes());
            store(m.worker(), m.to(), m.blockHashes());
        } else if (event instanceof KvEvent.Cleared c) {
            for (Iterator<Block> it = blocks.values().iterator(); it.hasNext(); ) {
                Block b = it.next();
                b.removeWorker(c.worker());
                if (b.isEmpty()) {
                    it.remove();
                }
            }
        }
    }

    private void store(int worker, Tier tier, long[] hashes) {
        for (long h : hashes) {
            blocks.computeIfAbsent(h, k -> new Block()).tier(tier.ordinal()).add(worker);
        }
    }

    private void remove(int worker, Tier tier, long[] hashes) {
        for (long h : hashes) {
            Block b = blocks.get(h);
            if (b == null) {
                continue;
            }
            if (b.real[tier.ordinal()] != null) {
                b.real[tier.ordinal()].remove(worker);
            }
            if (tier == Tier.HBM && !b.approxExpiry.isEmpty()) {
                b.approxExpiry.remove(worker); // the engine's own word beats our guess
            }
            if (b.isEmpty()) {
                blocks.remove(h);
            }
        }
    }

    @Override
    public void recordRouted(int worker, long[] blockHashes, int n, long nowNanos, long ttlNanos) {
        long expiry = PrefixIndex.routedExpiry(nowNanos, ttlNanos);
        for (int i = 0; i < Math.min(n, blockHashes.length); i++) {
            blocks.computeIfAbsent(blockHashes[i], k -> new Block()).approx().merge(worker, expiry, Math::max);
        }
    }

    @Override
    public void releaseRouted(int worker, long[] blockHashes, int n, long nowNanos, long ttlNanos) {
        Long expiry = PrefixIndex.routedExpiry(nowNanos, ttlNanos);
        for (int i = 0; i < Math.min(n, blockHashes.length); i++) {
            Block b = blocks.get(blockHashes[i]);
            if (b != null && expiry.equals(b.approxExpiry.get(worker))) {
                b.approxExpiry.remove(worker); // an entry a later insert extended is not this one's
                if (b.isEmpty()) {
                    blocks.remove(blockHashes[i]);
                }
            }
        }
    }

    @Override
    public void expire(long nowNanos) {
        for (Iterator<Block> it = blocks.values().iterator(); it.hasNext(); ) {
            Block b = it.next();
            if (!b.approxExpiry.isEmpty()) {
                b.approxExpiry.values().removeIf(e -> e <= nowNanos);
            }
            if (b.isEmpty()) {
                it.remove();
            }
        }
    }

    /** Walks block by block, one map lookup per block, keeping the (worker, tier) pairs still matching. */
    @Override
    public void match(long[] blockHashes, int n, long nowNanos, PrefixMatch out) {
        int len = Math.max(0, Math.min(n, blockHashes.length));
        out.reset(len);
        int[] alive = new int[workers * Tier.COUNT]; // worker * COUNT + tier
        int aliveCount = alive.length;
        for (int i = 0; i < alive.length; i++) {
            alive[i] = i;
        }
        for (int depth = 0; depth < len && aliveCount > 0; depth++) {
            Block b = blocks.get(blockHashes[depth]);
            for (int i = aliveCount - 1; i >= 0; i--) {
                int wt = alive[i];
                if (b == null || !b.holds(wt / Tier.COUNT, wt % Tier.COUNT, nowNanos)) {
                    out.set(wt / Tier.COUNT, wt % Tier.COUNT, depth); // already 0 when depth is 0
                    alive[i] = alive[--aliveCount];
                }
            }
        }
        for (int i = 0; i < aliveCount; i++) {
            out.set(alive[i] / Tier.COUNT, alive[i] % Tier.COUNT, len);
        }
    }

    @Override
    public long blockCount() {
        return blocks.size();
    }
}
