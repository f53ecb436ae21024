package io.tierroute.selector.index;

import java.util.Arrays;

import io.tierroute.selector.protocol.Tier;

/**
 * Who holds a block, immutable: per tier a bitset of workers holding it from engine events, the
 * cumulative bitsets derived from them ({@code cum_t} = held on tier {@code t} or faster), and the
 * approximate HBM entries (worker, expiry) that {@link PrefixIndex#recordRouted} created.
 *
 * <p>Every block of a {@link Run} shares one instance; writers derive new instances, readers only
 * read. Equality is by content, so the writer can tell when a change is a no-op.
 */
final class Holders {

    private static final int[] NO_WORKERS = new int[0];
    private static final long[] NO_EXPIRY = new long[0];

    final int words;
    /** [tier * words + word]: held on exactly that tier (events). */
    final long[] real;
    /**
     * What a lookup reads, in one array (one cache miss): {@code [tier * words + word]} = held on that
     * tier or a faster one (events only), then at {@code Tier.COUNT * words} the bits of
     * {@link #approxWorkers}.
     */
    final long[] bits;
    /** Approximate HBM holders, ascending worker order, with their expiry (exclusive). */
    final int[] approxWorkers;
    final long[] approxExpiry;
    /** Smallest expiry of the approximate entries, {@code Long.MAX_VALUE} when there are none. */
    final long minExpiry;
    private final int hash;

    private Holders(int words, long[] real, int[] approxWorkers, long[] approxExpiry) {
        this.words = words;
        this.real = real;
        this.bits = new long[real.length + words];
        for (int t = 0; t < Tier.COUNT; t++) {
            for (int w = 0; w < words; w++) {
                int i = t * words + w;
                bits[i] = t == 0 ? real[i] : bits[i - words] | real[i];
            }
        }
        this.approxWorkers = approxWorkers;
        this.approxExpiry = approxExpiry;
        int ap = Tier.COUNT * words;
        long min = Long.MAX_VALUE;
        for (int i = 0; i < approxWorkers.length; i++) {
            bits[ap + (approxWorkers[i] >>> 6)] |= 1L << approxWorkers[i];
            min = Math.min(min, approxExpiry[i]);
        }
        this.minExpiry = min;
        this.hash = 31 * Arrays.hashCode(real) + 17 * Arrays.hashCode(approxWorkers) + Arrays.hashCode(approxExpiry);
    }

    static Holders empty(int words) {
        return new Holders(words, new long[Tier.COUNT * words], NO_WORKERS, NO_EXPIRY);
    }

    boolean isEmpty() {
        if (approxWorkers.length != 0) {
            return false;
        }
        for (long l : real) {
            if (l != 0) {
                return false;
            }
        }
        return true;
    }

    boolean hasApprox() {
        return approxWorkers.length != 0;
    }

    boolean holdsReal(int worker, int tier) {
        return (real[tier * words + (worker >>> 6)] & (1L << worker)) != 0;
    }

    /** True when {@code worker} appears in any tier or in the approximate entries. */
    boolean involves(int worker) {
        int w = worker >>> 6;
        long bit = 1L << worker;
        return (bits[(Tier.COUNT - 1) * words + w] & bit) != 0 || (bits[Tier.COUNT * words + w] & bit) != 0;
    }

    Holders withReal(int worker, int tier) {
        if (holdsReal(worker, tier)) {
            return this;
        }
        long[] r = real.clone();
        r[tier * words + (worker >>> 6)] |= 1L << worker;
        return new Holders(words, r, approxWorkers, approxExpiry);
    }

    /** Drops the tier holding; a removal from HBM also drops the worker's approximate entry. */
    Holders withoutReal(int worker, int tier) {
        boolean dropApprox = tier == 0 && approxIndex(worker) >= 0;
        if (!holdsReal(worker, tier) && !dropApprox) {
            return this;
        }
        long[] r = real;
        if (holdsReal(worker, tier)) {
            r = real.clone();
            r[tier * words + (worker >>> 6)] &= ~(1L << worker);
        }
        Holders h = new Holders(words, r, approxWorkers, approxExpiry);
        return dropApprox ? h.withoutApprox(worker) : h;
    }

    /** Sets (or extends: the later expiry wins) the worker's approximate HBM entry. */
    Holders withApprox(int worker, long expiry) {
        int i = approxIndex(worker);
        if (i >= 0) {
            if (approxExpiry[i] >= expiry) {
                return this;
            }
            long[] e = approxExpiry.clone();
            e[i] = expiry;
            return new Holders(words, real, approxWorkers, e);
        }
        int ins = -i - 1;
        int n = approxWorkers.length;
        int[] w = new int[n + 1];
        long[] e = new long[n + 1];
        System.arraycopy(approxWorkers, 0, w, 0, ins);
        System.arraycopy(approxExpiry, 0, e, 0, ins);
        w[ins] = worker;
        e[ins] = expiry;
        System.arraycopy(approxWorkers, ins, w, ins + 1, n - ins);
        System.arraycopy(approxExpiry, ins, e, ins + 1, n - ins);
        return new Holders(words, real, w, e);
    }

    Holders withoutApprox(int worker) {
        int i = approxIndex(worker);
        if (i < 0) {
            return this;
        }
        return new Holders(words, real, remove(approxWorkers, i), remove(approxExpiry, i));
    }

    /** Drops the worker's approximate entry only while its expiry is {@code expiry}: the insert that gave it that one. */
    Holders withoutApprox(int worker, long expiry) {
        int i = approxIndex(worker);
        return i >= 0 && approxExpiry[i] == expiry ? withoutApprox(worker) : this;
    }

    /** Drops every holding of {@code worker}, real and approximate. */
    Holders withoutWorker(int worker) {
        if (!involves(worker)) {
            return this;
        }
        long[] r = real.clone();
        for (int t = 0; t < Tier.COUNT; t++) {
            r[t * words + (worker >>> 6)] &= ~(1L << worker);
        }
        return new Holders(words, r, approxWorkers, approxExpiry).withoutApprox(worker);
    }

    /** Drops approximate entries whose expiry is at or before {@code nowNanos}. */
    Holders withoutExpired(long nowNanos) {
        if (minExpiry > nowNanos) {
            return this;
        }
        int keep = 0;
        for (long e : approxExpiry) {
            if (e > nowNanos) {
                keep++;
            }
        }
        int[] w = new int[keep];
        long[] e = new long[keep];
        for (int i = 0, j = 0; i < approxExpiry.length; i++) {
            if (approxExpiry[i] > nowNanos) {
                w[j] = approxWorkers[i];
                e[j++] = approxExpiry[i];
            }
        }
        return new Holders(words, real, w, e);
    }

    /** Writes into {@code dst[off, off + words)} the approximate holders still valid at {@code nowNanos}. */
    void approxValidAt(long nowNanos, long[] dst, int off) {
        for (int w = 0; w < words; w++) {
            dst[off + w] = 0;
        }
        for (int i = 0; i < approxWorkers.length; i++) {
            if (approxExpiry[i] > nowNanos) {
                dst[off + (approxWorkers[i] >>> 6)] |= 1L << approxWorkers[i];
            }
        }
    }

    private int approxIndex(int worker) {
        return Arrays.binarySearch(approxWorkers, worker);
    }

    private static int[] remove(int[] a, int i) {
        int[] r = new int[a.length - 1];
        System.arraycopy(a, 0, r, 0, i);
        System.arraycopy(a, i + 1, r, i, a.length - i - 1);
        return r;
    }

    private static long[] remove(long[] a, int i) {
        long[] r = new long[a.length - 1];
        System.arraycopy(a, 0, r, 0, i);
        System.arraycopy(a, i + 1, r, i, a.length - i - 1);
        return r;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Holders h) || h.hash != hash) {
            return false;
        }
        return Arrays.equals(real, h.real) && Arrays.equals(approxWorkers, h.approxWorkers)
                && Arrays.equals(approxExpiry, h.approxExpiry);
    }

    @Override
    public int hashCode() {
        return hash;
    }
}
