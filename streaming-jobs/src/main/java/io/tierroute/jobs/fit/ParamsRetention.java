package io.tierroute.jobs.fit;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;

/**
 * Which versions of the current scope leave {@code tierroute.params} ({@code --params-retain-versions}): once version
 * {@code v} is published, every version below {@code v − retain + 1} gets a tombstone unless something still needs
 * it, in which case it is held back and deleted once nothing does. Needed are the versions the caller names (active,
 * pinned, the rollback target) and the record carrying a forest that a kept version uses (every later record names it,
 * {@code quantileModelVersion}: deleted, their readers would lose the model). Over {@link ScopeFitFunction}'s keyed
 * state: how far deletion has gone, each carrier's newest user, and the held-back versions.
 */
final class ParamsRetention {
    /**
     * Tombstones one publication emits at most: a job upgraded onto a long history works through it a thousand
     * versions a snapshot rather than in one burst that would fill a checkpoint's transaction.
     */
    static final int MAX_PER_PUBLISH = 1000;

    private final ValueState<Long> deletedBelow;
    private final MapState<Long, Long> carrierNewestUse;
    private final MapState<Long, Boolean> heldBack;
    private final int retain;

    ParamsRetention(ValueState<Long> deletedBelow, MapState<Long, Long> carrierNewestUse,
                    MapState<Long, Boolean> heldBack, int retain) {
        this.deletedBelow = deletedBelow;
        this.carrierNewestUse = carrierNewestUse;
        this.heldBack = heldBack;
        this.retain = retain;
    }

    /**
     * After version {@code v} is published, naming the record that carries its forest ({@code carrier}, 0 for none):
     * the versions to delete now, oldest first.
     *
     * @param needed versions that must stay whatever their age (active, pinned, rollback target)
     */
    List<Long> afterPublish(long v, long carrier, LongPredicate needed) throws Exception {
        List<Long> delete = new ArrayList<>();
        if (retain == 0) {
            return delete;
        }
        if (carrier > 0) {
            carrierNewestUse.put(carrier, v);
        }
        long keepFrom = v - retain + 1;
        LongPredicate stays = t -> needed.test(t) || usedCarrier(t, keepFrom);
        List<Long> released = new ArrayList<>();
        for (Long t : heldBack.keys()) {
            if (!stays.test(t)) {
                released.add(t);
            }
        }
        for (Long t : released) {
            heldBack.remove(t);
            delete.add(t);
        }
        long from = deletedBelow.value() == null ? 1 : deletedBelow.value();
        long t = from;
        for (; t < keepFrom && delete.size() < MAX_PER_PUBLISH; t++) {
            if (stays.test(t)) {
                heldBack.put(t, Boolean.TRUE);
            } else {
                delete.add(t);
            }
        }
        if (t != from) {
            deletedBelow.update(t);
        }
        List<Long> unused = new ArrayList<>(); // carriers whose users are all older than what is kept
        for (var e : carrierNewestUse.entries()) {
            if (e.getValue() < keepFrom) {
                unused.add(e.getKey());
            }
        }
        for (Long c : unused) {
            carrierNewestUse.remove(c);
        }
        delete.sort(null);
        return delete;
    }

    private boolean usedCarrier(long t, long keepFrom) {
        try {
            Long newest = carrierNewestUse.get(t);
            return newest != null && newest >= keepFrom;
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the forest carriers' state", e);
        }
    }
}
