package io.tierroute.selector.index;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;

/** Seeded random operation streams over a universe of hash chains, for the index tests. */
final class IndexOps {

    /** One step of a scenario: a write, or a lookup whose answer the harness compares. */
    sealed interface Op permits Event, Routed, Released, Expire, Lookup {}

    record Event(KvEvent event) implements Op {
        @Override
        public String toString() {
            return describe(event);
        }
    }

    record Routed(int worker, long[] hashes, int blocks, long now, long ttl) implements Op {
        @Override
        public String toString() {
            return "Routed(w" + worker + ", " + Arrays.toString(hashes) + ", n=" + blocks + ", now=" + now + ", ttl=" + ttl + ")";
        }
    }

    /** The release of an earlier {@link Routed} (same arguments): a computing claim whose request failed. */
    record Released(Routed of) implements Op {}

    record Expire(long now) implements Op {}

    record Lookup(long[] hashes, int blocks, long now) implements Op {
        @Override
        public String toString() {
            return "Lookup(" + Arrays.toString(hashes) + ", n=" + blocks + ", now=" + now + ")";
        }
    }

    static String describe(KvEvent e) {
        if (e instanceof KvEvent.Stored s) {
            return "Stored(w" + s.worker() + ", " + s.tier() + ", parent=" + (s.hasParent() ? s.parentHash() : "-")
                    + ", " + Arrays.toString(s.blockHashes()) + ")";
        } else if (e instanceof KvEvent.Removed r) {
            return "Removed(w" + r.worker() + ", " + r.tier() + ", " + Arrays.toString(r.blockHashes()) + ")";
        } else if (e instanceof KvEvent.Moved m) {
            return "Moved(w" + m.worker() + ", " + m.from() + "->" + m.to() + ", " + Arrays.toString(m.blockHashes()) + ")";
        }
        return e.toString();
    }

    final Random rnd;
    final int workers;
    final List<long[]> chains = new ArrayList<>();
    /** The latest approximate inserts, some of which a {@link Released} withdraws (after expiry, a refresh, an event). */
    private final List<Routed> recentRouted = new ArrayList<>();
    long now;

    IndexOps(long seed, int workers, int roots, int maxLen) {
        this.rnd = new Random(seed);
        this.workers = workers;
        for (int i = 0; i < roots; i++) {
            chains.add(fresh(1 + rnd.nextInt(maxLen)));
        }
        // forks: shared prefixes, as real conversations have
        for (int i = 0; i < roots * 4; i++) {
            long[] base = chains.get(rnd.nextInt(chains.size()));
            int keep = rnd.nextInt(base.length + 1);
            long[] c = Arrays.copyOf(base, keep + 1 + rnd.nextInt(maxLen));
            long[] tail = fresh(c.length - keep);
            System.arraycopy(tail, 0, c, keep, tail.length);
            chains.add(c);
        }
    }

    private long[] fresh(int n) {
        long[] c = new long[n];
        for (int i = 0; i < n; i++) {
            int k = rnd.nextInt(1000);
            c[i] = k == 0 ? 0L : k < 5 ? k : rnd.nextLong(); // hash 0 and tiny values too
        }
        return c;
    }

    long[] chain() {
        return chains.get(rnd.nextInt(chains.size()));
    }

    /** A contiguous slice of a chain, occasionally a scattered (non-chain, with repeats) pick. */
    private long[] slice(long[] c, int from) {
        if (rnd.nextInt(20) == 0) {
            long[] s = new long[1 + rnd.nextInt(6)];
            for (int i = 0; i < s.length; i++) {
                long[] any = chain();
                s[i] = any[rnd.nextInt(any.length)];
            }
            return s;
        }
        int len = 1 + rnd.nextInt(c.length - from);
        return Arrays.copyOfRange(c, from, from + len);
    }

    private Tier tier() {
        int k = rnd.nextInt(10);
        return k < 5 ? Tier.HBM : k < 8 ? Tier.CPU : k < 9 ? Tier.NVME : Tier.REMOTE;
    }

    Op next() {
        now += rnd.nextInt(3);
        int w = rnd.nextInt(workers);
        int k = rnd.nextInt(100);
        long[] c = chain();
        if (k < 30) {
            int from = rnd.nextInt(3) == 0 ? rnd.nextInt(c.length) : 0;
            long[] s = slice(c, from);
            boolean hasParent = from > 0 && rnd.nextInt(4) != 0;
            return new Event(new KvEvent.Stored(w, tier(), hasParent, hasParent ? c[from - 1] : 0, s));
        } else if (k < 42) {
            return new Event(new KvEvent.Removed(w, tier(), slice(c, rnd.nextInt(c.length))));
        } else if (k < 47) {
            return new Event(new KvEvent.Moved(w, tier(), tier(), slice(c, rnd.nextInt(c.length))));
        } else if (k < 48) {
            return new Event(new KvEvent.Cleared(w));
        } else if (k < 58) {
            int n = 1 + rnd.nextInt(c.length);
            Routed r = new Routed(w, c, n, now, 1 + rnd.nextInt(60));
            if (recentRouted.size() == 16) {
                recentRouted.remove(rnd.nextInt(16));
            }
            recentRouted.add(r);
            return r;
        } else if (k < 61) {
            return new Expire(now);
        } else if (k < 65 && !recentRouted.isEmpty()) {
            return new Released(recentRouted.remove(rnd.nextInt(recentRouted.size())));
        }
        return lookup(c);
    }

    Lookup lookup(long[] c) {
        int kind = rnd.nextInt(10);
        long[] q;
        if (kind < 6) {
            q = c;
        } else if (kind < 8) { // a known prefix with a new tail
            int keep = rnd.nextInt(c.length + 1);
            q = Arrays.copyOf(c, keep + rnd.nextInt(5));
            for (int i = keep; i < q.length; i++) {
                q[i] = rnd.nextLong();
            }
        } else if (kind < 9) {
            q = Arrays.copyOfRange(c, rnd.nextInt(c.length), c.length);
        } else {
            q = fresh(1 + rnd.nextInt(8));
        }
        int n = rnd.nextInt(8) == 0 ? rnd.nextInt(q.length + 1) : q.length;
        return new Lookup(q, n, now);
    }

    /** Applies a write op; returns false for lookups. */
    static boolean write(PrefixIndex index, Op op) {
        if (op instanceof Event e) {
            index.apply(e.event());
        } else if (op instanceof Routed r) {
            index.recordRouted(r.worker(), r.hashes(), r.blocks(), r.now(), r.ttl());
        } else if (op instanceof Released x) {
            Routed r = x.of();
            index.releaseRouted(r.worker(), r.hashes(), r.blocks(), r.now(), r.ttl());
        } else if (op instanceof Expire x) {
            index.expire(x.now());
        } else {
            return false;
        }
        return true;
    }
}
