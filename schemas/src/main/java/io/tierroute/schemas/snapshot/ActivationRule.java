package io.tierroute.schemas.snapshot;

import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;

import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

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
 *       after it saw the unpin), else p. A version superseded by a rollback is never reactivated.</li>
 *   <li>no control record: the highest accepted version.</li>
 * </ul>
 *
 * Control records with a sequence not greater than the last applied one of their scope are
 * ignored (the topic is single-writer ordered per scope). Not thread-safe: one reader feeds it.
 */
public final class ActivationRule {

    private final Map<String, ScopeState> scopes = new HashMap<>();

    /** Records a snapshot read from the params topic. */
    public void onSnapshot(ParameterSnapshot snapshot) {
        onSnapshot(snapshot.getScope(), snapshot.getVersion(), snapshot.getStatus(), snapshot.getControlSequence());
    }

    /** Records a snapshot by its identifying fields. */
    public void onSnapshot(String scope, long version, SnapshotStatus status, long controlSequence) {
        if (version > ControlRecordCheck.MAX_VERSION) {
            return; // no job publishes it (its start-up read skips it): made active here, it would outrank them all
        }
        ScopeState state = scopes.computeIfAbsent(scope, s -> new ScopeState());
        if (status == SnapshotStatus.ACCEPTED) {
            state.accepted.put(version, controlSequence);
        } else {
            state.accepted.remove(version); // a rejected (or unvalidated) version is never active
        }
    }

    /**
     * Applies a control record; returns false (and changes nothing) when it is not a valid record
     * ({@link ControlRecordCheck}) or its sequence is not greater than the last applied one of its scope.
     */
    public boolean onControl(SnapshotControl control) {
        if (ControlRecordCheck.problem(control) != null) {
            return false; // the job dead-letters it: applying it here would let readers disagree
        }
        ScopeState state = scopes.computeIfAbsent(control.getScope(), s -> new ScopeState());
        if (state.control != null && control.getSequence() <= state.control.getSequence()) {
            return false;
        }
        state.control = control;
        return true;
    }

    /** The active version of {@code scope}, or empty when none can be active yet. */
    public OptionalLong activeVersion(String scope) {
        ScopeState state = scopes.get(scope);
        if (state == null) {
            return OptionalLong.empty();
        }
        SnapshotControl control = state.control;
        if (control == null) {
            return state.accepted.isEmpty() ? OptionalLong.empty() : OptionalLong.of(state.accepted.lastKey());
        }
        Long named = control.getVersion();
        if (control.getAction() == ControlAction.PIN) {
            return named != null && isKnownUsable(state, named) ? OptionalLong.of(named) : OptionalLong.empty();
        }
        for (Map.Entry<Long, Long> e : state.accepted.descendingMap().entrySet()) {
            if (e.getValue() >= control.getSequence()) {
                return OptionalLong.of(e.getKey());
            }
        }
        if (named != null && isKnownUsable(state, named)) {
            return OptionalLong.of(named);
        }
        return state.accepted.isEmpty() ? OptionalLong.empty() : OptionalLong.of(state.accepted.lastKey());
    }

    /** The highest accepted version of {@code scope} below {@code below}, if any. */
    public OptionalLong previousAccepted(String scope, long below) {
        ScopeState state = scopes.get(scope);
        Long previous = state == null ? null : state.accepted.lowerKey(below);
        return previous == null ? OptionalLong.empty() : OptionalLong.of(previous);
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

    /** Every scope seen on either topic. */
    public Set<String> scopes() {
        return scopes.keySet();
    }

    private static boolean isKnownUsable(ScopeState state, long version) {
        return state.accepted.containsKey(version);
    }

    private static final class ScopeState {
        /** Accepted versions → the control sequence their job had applied. */
        final NavigableMap<Long, Long> accepted = new TreeMap<>();
        SnapshotControl control;
    }
}
