package io.tierroute.schemas.snapshot;

import io.tierroute.schemas.avro.ControlAction;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What was active before, in one scope: the rollback half of {@link ActivationRule}, which feeds it every valid control
 * record and asks it for {@link ActivationRule#rollbackTarget} and {@link ActivationRule#rolledBackFrom}.
 *
 * <p>Control records carry no "rolled back from" field, but what was active during each control record's reign follows
 * from the records and the snapshots' stamps, in the job's order: before any control record, each accepted version
 * stamped 0 as it was published; under a PIN, its version; under an UNPIN, the version it names, then each accepted
 * version stamped with its sequence. A version active when a PIN of an older one was applied was rolled back from
 * (unless an operator pinned it again later).
 *
 * <p><b>Gaps.</b> Where a control record is missing (deleted, a topic that keeps each scope's last record only, a
 * sequence no record on the topic has), what was active during its reign is unknown: the versions stamped with it may
 * have been active in any order, or not at all. The walk back from the active version is trusted only as far as the
 * first such gap: if it would cross one before it finds a target, the target is the newest accepted version below the
 * active one that no known rollback moved away from (the documented answer where the records are gone), never a
 * version from before the gap, however far back that is.
 *
 * <p>Control sequences are consecutive per scope (each writer writes the last it read + 1; it jumps only past a
 * snapshot's stamp whose record is gone: {@link ActivationRule#nextSequence}), so a sequence between two known ones
 * without a record is a gap too. Not thread-safe: the rule's reader thread.
 */
final class RollbackHistory {

    /** A control record as the history needs it. */
    private record Known(ControlAction action, Long version) {}

    /** One version active in turn; {@code afterGap}: a stretch not known lies between it and the one before. */
    private record Entry(long version, boolean afterGap) {}

    /** What was active in turn (oldest first, no repeats in a row), the versions rolled back from, a gap at the end. */
    private record Walk(List<Entry> active, NavigableSet<Long> rolledBackFrom, boolean gapAtEnd) {}

    /** Every valid control record read, by sequence, whatever order it was read in. */
    private final NavigableMap<Long, Known> controls = new TreeMap<>();

    /** Records a valid control record; one read after a later one is still what its sequence meant. */
    void onControl(long sequence, ControlAction action, Long version) {
        controls.putIfAbsent(sequence, new Known(action, version));
    }

    /**
     * The version a rollback pins: the most recent version active before {@code active} that is older than it, in
     * {@code eligible} and not rolled back from; where a gap lies between, the newest eligible version below
     * {@code active} not rolled back from. Empty when there is no such version.
     *
     * @param eligible the scope's accepted versions not held back → the control sequence each was stamped with
     */
    OptionalLong target(NavigableMap<Long, Long> eligible, long active) {
        Walk w = walk(eligible);
        boolean crossedGap = w.gapAtEnd();
        for (int i = w.active().size() - 1; i >= 0 && !crossedGap; i--) {
            Entry e = w.active().get(i);
            long v = e.version();
            if (v < active && !w.rolledBackFrom().contains(v) && eligible.containsKey(v)) {
                return OptionalLong.of(v);
            }
            crossedGap = e.afterGap();
        }
        for (Long v = eligible.lowerKey(active); v != null; v = eligible.lowerKey(v)) {
            if (!w.rolledBackFrom().contains(v)) {
                return OptionalLong.of(v);
            }
        }
        return OptionalLong.empty();
    }

    /** The versions rolled back from, as far as the records and stamps tell; ascending. */
    NavigableSet<Long> rolledBackFrom(NavigableMap<Long, Long> eligible) {
        return walk(eligible).rolledBackFrom();
    }

    /**
     * The versions active in turn (see the class documentation). A stretch whose control record is not known (gone, or
     * not read yet) adds nothing; the next entry is marked as after a gap, and no rollback is inferred across it.
     */
    private Walk walk(NavigableMap<Long, Long> eligible) {
        TreeMap<Long, List<Long>> byStamp = new TreeMap<>();
        for (Map.Entry<Long, Long> e : eligible.entrySet()) {
            byStamp.computeIfAbsent(e.getValue(), s -> new ArrayList<>()).add(e.getKey()); // ascending versions
        }
        List<Entry> active = new ArrayList<>();
        TreeSet<Long> rolledBackFrom = new TreeSet<>();
        long lastFrom = -1; // the stretch (its sequence, 0 before any control) the last entry of active came from
        boolean gap = false; // a stretch not known since the last entry
        long previous = 0;
        TreeSet<Long> stretches = new TreeSet<>(byStamp.keySet());
        stretches.add(0L);
        stretches.addAll(controls.keySet());
        for (long sequence : stretches) {
            if (sequence > previous + 1) {
                gap = true; // sequences between previous and this one: no record of them, nor a snapshot stamped with one
            }
            previous = sequence;
            Known c = sequence == 0 ? null : controls.get(sequence);
            if (sequence != 0 && c == null) {
                gap = true; // stamped with a control record this reader does not have: what was active then is unknown
                continue;
            }
            if (c != null && c.action() == ControlAction.PIN) {
                long pinned = c.version();
                if (lastFrom == sequence - 1 && !active.isEmpty() && pinned < last(active)) {
                    rolledBackFrom.add(last(active)); // a pin of an older version: the one it moved away from
                }
                rolledBackFrom.remove(pinned); // an operator chose it again
                gap = append(active, pinned, gap);
                lastFrom = sequence;
                continue;
            }
            if (c != null && c.version() != null) {
                gap = append(active, c.version(), gap); // an UNPIN leaves the version it names active
                lastFrom = sequence;
            }
            for (long v : byStamp.getOrDefault(sequence, List.of())) {
                gap = append(active, v, gap);
                lastFrom = sequence;
            }
        }
        return new Walk(active, rolledBackFrom, gap);
    }

    /**
     * Appends {@code version} unless it is the last entry already with nothing unknown between (after a gap it is a new
     * entry: what came before the gap is not known to lead to it); returns the gap flag for the next entry.
     */
    private static boolean append(List<Entry> active, long version, boolean gap) {
        if (gap || active.isEmpty() || last(active) != version) {
            active.add(new Entry(version, gap));
        }
        return false;
    }

    private static long last(List<Entry> list) {
        return list.get(list.size() - 1).version();
    }
}
