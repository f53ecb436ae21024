package io.tierroute.jobs.join;

import java.io.IOException;
import java.util.Arrays;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;

/**
 * The join's event-time clean-up timers per shard that may still be pending: the bucket ends registered and not yet
 * fired nor deleted, for both sides at once (a timer is one per shard and time, whichever side's bucket ends there).
 * The join registers a bucket's timer once, not for every side (Flink deduplicates it, but only after building and
 * hashing a timer: 7 % of the join task's samples, ninth round), and its wall-clock backstop deletes the timers of
 * buckets no side holds any more: with a stalled watermark nothing fires them, while new sides' event times keep
 * opening buckets.
 *
 * <p>Kept in keyed state ({@value #STATE}, one {@code long[]} per shard, written only when a shard registers, fires
 * or deletes a timer: about once per shard and bucket) with a copy in memory read once per shard and run. In memory
 * only, a restore lost them: the timers a run registered whose buckets joins emptied stayed until the watermark moved,
 * so a job restored every 20 min through a stalled day went from 6 820 to 22 691 timers (a reviewer's probe). A
 * checkpoint keeps the timers and this state together, so a restored shard knows its pending timers exactly. State
 * restored from the version before has none: those shards know only what they register from then on.
 *
 * <p>Every call runs with the shard's key current (in an element or a timer of that shard).
 */
final class CleanupTimers {
    static final String STATE = "join-cleanup-timers";

    /** Per shard: the ends whose timers may be pending, newest last (null: none, or not read yet). */
    private final long[][] ends = new long[RequestShards.COUNT][];
    private final int[] counts = new int[RequestShards.COUNT];
    /** Per shard: whether this run has read its state. */
    private final boolean[] read = new boolean[RequestShards.COUNT];
    private final ValueState<long[]> state;

    CleanupTimers(ValueState<long[]> state) {
        this.state = state;
    }

    static ValueStateDescriptor<long[]> descriptor() {
        return new ValueStateDescriptor<>(STATE, PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);
    }

    /**
     * A side of the shard waits in the bucket ending at {@code end}: whether the join must register that timer (it is
     * not pending already). Registering also forgets the shard's fired timers when the list
     * would grow, so it holds about the shard's pending timers.
     */
    boolean register(int shard, long end, long watermark) throws IOException {
        if (end <= watermark) {
            return true; // fires at the next watermark, not kept (a side's deadline is after the watermark it came at)
        }
        load(shard);
        long[] e = ends[shard];
        int n = counts[shard];
        for (int i = n - 1; i >= 0; i--) { // newest first: mostly the bucket now filling
            if (e[i] == end) {
                return false;
            }
        }
        if (e == null) {
            e = ends[shard] = new long[4];
        } else if (n == e.length) {
            n = dropFired(shard, watermark);
            if (n == e.length) {
                e = ends[shard] = Arrays.copyOf(e, n * 2);
            }
        }
        e[n] = end;
        counts[shard] = n + 1;
        save(shard);
        return true;
    }

    /** The shard's clean-up timers at or before the watermark have fired: they are no longer pending. */
    void fired(int shard, long watermark) throws IOException {
        load(shard);
        int before = counts[shard];
        if (dropFired(shard, watermark) != before) {
            save(shard);
        }
    }

    /** The shard's timers after the watermark, which may be pending (a copy, oldest first). */
    long[] pending(int shard, long watermark) throws IOException {
        fired(shard, watermark);
        return ends[shard] == null ? new long[0] : Arrays.copyOf(ends[shard], counts[shard]);
    }

    /** The join deleted the shard's timer at {@code end}: a side of that bucket registers it again. */
    void deleted(int shard, long end) throws IOException {
        load(shard);
        long[] e = ends[shard];
        int n = counts[shard];
        for (int i = 0; i < n; i++) {
            if (e[i] == end) {
                System.arraycopy(e, i + 1, e, i, n - i - 1); // keeps newest last
                counts[shard] = n - 1;
                save(shard);
                return;
            }
        }
    }

    /** Drops the shard's ends at or before the watermark (their timers fired); returns how many are left. */
    private int dropFired(int shard, long watermark) {
        long[] e = ends[shard];
        int kept = 0;
        for (int i = 0; i < counts[shard]; i++) {
            if (e[i] > watermark) {
                e[kept++] = e[i];
            }
        }
        counts[shard] = kept;
        return kept;
    }

    private void load(int shard) throws IOException {
        if (!read[shard]) {
            long[] kept = state.value();
            ends[shard] = kept == null ? null : kept.clone();
            counts[shard] = kept == null ? 0 : kept.length;
            read[shard] = true;
        }
    }

    private void save(int shard) throws IOException {
        if (counts[shard] == 0) {
            state.clear();
        } else {
            state.update(Arrays.copyOf(ends[shard], counts[shard]));
        }
    }
}
