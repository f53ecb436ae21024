package io.tierroute.schemas.snapshot;

import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;

import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongPredicate;

/**
 * Which snapshot version is active in each scope, decided only from what is on the params and
 * control topics (DESIGN.md §5), so that the job, every selector and the dashboard agree, whatever
 * order they read the two topics in:
 *
 * <ul>
 *   <li>scope pinned (its latest control record is a PIN of version v): v, once v is known and not
 *       rejected. No fitted snapshot can slip past a pin, because nothing else is considered.</li>
 *   <li>scope unpinned by an UNPIN with sequence s that names the version that was pinned (p): the
 *       highest accepted version whose {@code controlSequence >= s} (a snapshot the job produced
 *       after it saw the unpin), else p. A version superseded by a rollback is never reactivated.
 *       When p is not known (gone, or the UNPIN names none): the highest accepted version, once the
 *       reader has read both topics through (below).</li>
 *   <li>no control record: the highest accepted version.</li>
 * </ul>
 * (Accepted: not held back for its control record, below.)
 *
 * Control records with a sequence not greater than the last applied one of their scope are
 * ignored (the topic is single-writer ordered per scope). Not thread-safe: one reader feeds it.
 *
 * <p><b>Not only the final state: every state on the way.</b> Each snapshot carries the control sequence the job had
 * applied when it published it, and the job applied that control record before it published the snapshot, so the
 * record was on the control topic first. A reader that has read the snapshot but not yet that record (the two topics
 * are fetched independently; a control fetch can stall) does not know what the job knew: the snapshot may have been
 * fitted while a PIN held. So an accepted snapshot whose {@code controlSequence} is above its scope's last applied
 * sequence is <em>held back</em>: not eligible until the reader has applied a control record of that sequence or a
 * later one (then the rule above decides), never dropped. Likewise an UNPIN whose named version the reader has not
 * read (or that names none) activates nothing until that version is read: the newest accepted version read so far may
 * be one that was never active. So at every point of any read order the active version is one the scope had active at
 * some point in the job's own order (or none yet: a selector keeps what it serves), and once both topics are read the
 * answer is the one of every other reader.
 *
 * <p><b>Records that are gone.</b> A snapshot's control record can be missing for good: the control topic deleted or
 * recreated while the params topic kept its snapshots, its records deleted ({@code kafka-delete-records}, a tombstone),
 * a transaction that never committed, a record no reader can decode; the name an UNPIN gives can be a version deleted
 * since. Waiting for it would hold the scope back for ever (no active version at all, in every scope whose snapshots
 * carry the lost sequence). A reader therefore tells the rule when it has read both topics <em>through</em>: to end
 * offsets it fetched after the records counted in a {@link #readMark() mark} were read, hence after they were
 * published, hence after every record they depend on was. What was read before the mark and still waits depends on a
 * record that is not on the topics: it is released ({@link #readThrough}): a held-back snapshot is eligible as if its
 * control record had been read (the answer every reader gave before this hold-back existed, and the one every reader
 * that reads the topics as they now are gives), and an UNPIN without a readable named version falls back to the newest
 * accepted version. Readers that follow the topics drive this with {@link ReadThrough}; one-shot readers do one such
 * round at their end when {@link #waitsForReadThrough()}. The fitting job's own history is complete by construction
 * (it stamps what it applied): it reads through at once. This only keeps a scope from being stuck; it is no way to
 * start a scope's control records afresh: writers continue above the last sequence they can read on either topic
 * ({@link #nextSequence}), since the job ignores a record at or below the sequence it applied, while readers apply it
 * (the root README, "Snapshots").
 *
 * <p><b>Rollback target</b> ({@link #rollbackTarget}, worked out by {@link RollbackHistory}): the version that was
 * active before the current one, from the scope's control records and the snapshots' stamps (what was active during
 * each control record's reign), skipping every version an operator rolled back from (the version active when a PIN of
 * an older one was applied, unless an operator pinned it again later). Where the control records that would tell are
 * gone (a topic written before 2026-12-02 keeps only each scope's last record; records deleted) between the active
 * version and the one before it, the newest accepted version below the active one that no known rollback moved away
 * from.
 *
 * <p>Memory: one small entry per accepted version and one per control record of every scope.
 */
public final class ActivationRule {

    private final Map<String, ScopeState> scopes = new HashMap<>();
    /** Records fed so far (snapshots and control records, applied or not): what {@link #readMark()} returns. */
    private long reads;
    /** The mark of the last {@link #readThrough}: what was read up to it waits for nothing that is on the topics. */
    private long readThrough;

    /** Records a snapshot read from the params topic. */
    public void onSnapshot(ParameterSnapshot snapshot) {
        onSnapshot(snapshot.getScope(), snapshot.getVersion(), snapshot.getStatus(), snapshot.getControlSequence());
    }

    /** Records a snapshot by its identifying fields. */
    public void onSnapshot(String scope, long version, SnapshotStatus status, long controlSequence) {
        long read = ++reads;
        if (version > ControlRecordCheck.MAX_VERSION) {
            return; // no job publishes it (its start-up read skips it): made active here, it would outrank them all
        }
        ScopeState state = scopes.computeIfAbsent(scope, s -> new ScopeState());
        if (status != SnapshotStatus.ACCEPTED && controlSequence <= ControlRecordCheck.MAX_SEQUENCE) {
            state.highestOtherStamp = Math.max(state.highestOtherStamp, controlSequence); // accepted: in `accepted`
        }
        if (status == SnapshotStatus.ACCEPTED) {
            state.accepted.put(version, controlSequence);
            if (controlSequence > state.sequence()) {
                state.heldBack.put(version, read); // fitted under a control record this reader has not seen yet
            } else {
                state.heldBack.remove(version);
            }
        } else {
            state.accepted.remove(version); // a rejected (or unvalidated) version is never active
            state.heldBack.remove(version);
        }
    }

    /**
     * Applies a control record; returns false (and changes nothing) when it is not a valid record
     * ({@link ControlRecordCheck}) or its sequence is not greater than the last applied one of its scope.
     */
    public boolean onControl(SnapshotControl control) {
        long read = ++reads;
        if (ControlRecordCheck.problem(control) != null) {
            return false; // the job dead-letters it: applying it here would let readers disagree
        }
        ScopeState state = scopes.computeIfAbsent(control.getScope(), s -> new ScopeState());
        // Kept whatever its order: a record read after a later one is still what its sequence meant (rollback target).
        state.history.onControl(control.getSequence(), control.getAction(), control.getVersion());
        if (state.control != null && control.getSequence() <= state.control.getSequence()) {
            return false;
        }
        state.control = control;
        state.controlRead = read;
        long sequence = control.getSequence();
        state.heldBack.keySet().removeIf(v -> state.accepted.get(v) <= sequence); // the record they waited for
        return true;
    }

    /** The active version of {@code scope}, or empty when none can be active yet. */
    public OptionalLong activeVersion(String scope) {
        return activeVersion(scope, v -> true);
    }

    /**
     * The version the rule makes active in {@code scope} among those {@code servable} accepts, for a reader that found
     * versions it cannot use (an accepted record that fails its checks: a writer other than the job, a bug): the rule
     * as if those were not on the topic, so one such version with a high number does not hold the reader on an older
     * set while good versions below it arrive. A pin of a version it cannot use still makes nothing active (an
     * operator's choice is not overridden); an UNPIN whose named version it cannot use falls to the newest servable one
     * below that, never to one above (a version rolled back from stays so). Empty when none can be active yet.
     */
    public OptionalLong activeVersion(String scope, LongPredicate servable) {
        ScopeState state = scopes.get(scope);
        if (state == null) {
            return OptionalLong.empty();
        }
        SnapshotControl control = state.control;
        if (control == null) {
            return state.highestEligible(Long.MAX_VALUE, servable);
        }
        Long named = control.getVersion();
        if (control.getAction() == ControlAction.PIN) {
            return named != null && isKnownUsable(state, named) && servable.test(named) ? OptionalLong.of(named)
                    : OptionalLong.empty();
        }
        for (Map.Entry<Long, Long> e : state.accepted.descendingMap().entrySet()) {
            if (e.getValue() >= control.getSequence() && !state.heldBack.containsKey(e.getKey())
                    && servable.test(e.getKey())) {
                return OptionalLong.of(e.getKey());
            }
        }
        if (named != null && isKnownUsable(state, named)) {
            // Not servable: the newest below it, never one above (those were rolled back from, or never active).
            return servable.test(named) ? OptionalLong.of(named) : state.highestEligible(named, servable);
        }
        if (state.controlRead > readThrough) {
            return OptionalLong.empty(); // the version it names may not be read yet: what is newest now may never have been active
        }
        return state.highestEligible(Long.MAX_VALUE, servable); // the version it names is gone (or it named none)
    }

    /**
     * The version a rollback of {@code scope} pins: the most recent version active before the current one that is older
     * than it, still accepted, and not one an operator rolled back from ({@link #rolledBackFrom}); where the walk back
     * from the active version would cross a stretch whose control record is gone before it finds one, the newest such
     * accepted version below the active one ({@link RollbackHistory}). Empty when the scope has no active version or no
     * such version.
     */
    public OptionalLong rollbackTarget(String scope) {
        ScopeState state = scopes.get(scope);
        OptionalLong active = activeVersion(scope);
        if (state == null || active.isEmpty()) {
            return OptionalLong.empty();
        }
        return state.history.target(state.eligible(), active.getAsLong());
    }

    /**
     * The versions of {@code scope} an operator rolled back from: each the version active when a PIN of an older
     * version was applied (as far as the control records and the snapshots' stamps tell), unless a later PIN named it
     * again. Ascending.
     */
    public NavigableSet<Long> rolledBackFrom(String scope) {
        ScopeState state = scopes.get(scope);
        return state == null ? new TreeSet<>() : state.history.rolledBackFrom(state.eligible());
    }

    /** The last applied control record of {@code scope}. */
    public Optional<SnapshotControl> control(String scope) {
        ScopeState state = scopes.get(scope);
        return Optional.ofNullable(state == null ? null : state.control);
    }

    /** Whether {@code scope} is pinned now. */
    public boolean isPinned(String scope) {
        return control(scope).map(c -> c.getAction() == ControlAction.PIN).orElse(false);
    }

    /** The last applied control sequence of {@code scope} (0 when none). */
    public long controlSequence(String scope) {
        return control(scope).map(SnapshotControl::getSequence).orElse(0L);
    }

    /**
     * The sequence a writer gives the next control record of {@code scope}: above the last applied one, and above every
     * control sequence a snapshot of the scope was stamped with (any status; an accepted version deleted no longer
     * counts). The two differ once the control topic has
     * lost records the fitting job applied (deleted and created again, records deleted): numbering from the topic alone
     * would start again at 1, which the job ignores (it applied a higher sequence) while every reader applies it. The
     * job stamps what it applied on the next snapshot it publishes, so only a record applied and lost before the scope
     * published again is beyond what this can see (the job publishes nothing for a scope without new data). An accepted
     * version deleted (a tombstone) no longer counts: one stamped near 2^62 by a writer other than the job, which would
     * leave no sequence to write, is undone by deleting it.
     */
    public long nextSequence(String scope) {
        ScopeState state = scopes.get(scope);
        if (state == null) {
            return 1;
        }
        long highestStamp = state.highestOtherStamp;
        for (long stamp : state.accepted.values()) { // on a write only: a pass over the versions costs nothing there
            if (stamp <= ControlRecordCheck.MAX_SEQUENCE) { // above it no job stamps it, and no write could pass it
                highestStamp = Math.max(highestStamp, stamp);
            }
        }
        return Math.max(state.sequence(), highestStamp) + 1;
    }

    /** Every scope seen on either topic. */
    public Set<String> scopes() {
        return scopes.keySet();
    }

    // ---- reading through ----

    /** A mark of every record fed so far, for {@link #readThrough}. */
    public long readMark() {
        return reads;
    }

    /**
     * Whether something read waits for a record that may still come: an accepted snapshot held back for its control
     * record, or an applied UNPIN whose named version is not read (or that names none). A reader that sees this reads
     * both topics through ({@link ReadThrough}) and says so with {@link #readThrough}.
     */
    public boolean waitsForReadThrough() {
        for (ScopeState state : scopes.values()) {
            if (!state.heldBack.isEmpty() || waitsForNamedVersion(state)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The reader has read both topics up to end offsets it fetched after it took {@code mark} ({@link #readMark()}), so
     * every record that the records read before the mark depend on, if it is still on the topics, has been read. What
     * still waits of those is released (see the class documentation, "Records that are gone"). Returns whether anything
     * was released (the active version of a scope may have changed).
     */
    public boolean readThrough(long mark) {
        if (mark <= readThrough) {
            return false;
        }
        boolean released = false;
        for (ScopeState state : scopes.values()) {
            released |= waitsForNamedVersion(state) && state.controlRead <= mark;
            released |= state.heldBack.values().removeIf(read -> read <= mark);
        }
        readThrough = mark;
        return released;
    }

    private boolean waitsForNamedVersion(ScopeState state) {
        SnapshotControl c = state.control;
        return c != null && c.getAction() == ControlAction.UNPIN && state.controlRead > readThrough
                && (c.getVersion() == null || !isKnownUsable(state, c.getVersion()));
    }

    private static boolean isKnownUsable(ScopeState state, long version) {
        return state.accepted.containsKey(version);
    }

    private static final class ScopeState {
        /** Accepted versions → the control sequence their job had applied. */
        final NavigableMap<Long, Long> accepted = new TreeMap<>();
        /** Accepted versions held back for their control record → when they were read (see {@link #readMark}). */
        final NavigableMap<Long, Long> heldBack = new TreeMap<>();
        /** Every valid control record read, for the rollback target. */
        final RollbackHistory history = new RollbackHistory();
        SnapshotControl control;
        /** When {@link #control} was read. */
        long controlRead;
        /** The highest control sequence a snapshot of the scope not accepted was stamped with (tombstones stamp 0). */
        long highestOtherStamp;

        long sequence() {
            return control == null ? 0 : control.getSequence();
        }

        /** The accepted versions not held back → their stamps (a copy). */
        NavigableMap<Long, Long> eligible() {
            NavigableMap<Long, Long> e = new TreeMap<>(accepted);
            e.keySet().removeAll(heldBack.keySet());
            return e;
        }

        /** The highest accepted version below {@code below} that is not held back and {@code servable} accepts. */
        OptionalLong highestEligible(long below, LongPredicate servable) {
            for (Long v = accepted.lowerKey(below); v != null; v = accepted.lowerKey(v)) {
                if (!heldBack.containsKey(v) && servable.test(v)) {
                    return OptionalLong.of(v);
                }
            }
            return OptionalLong.empty();
        }
    }
}
