package io.tierroute.jobs.fit;

import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.snapshot.ActivationRule;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.metrics.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The current scope's active version and the control records that move it, over {@link ScopeFitFunction}'s
 * {@code control} and {@code version} state and its {@link VersionHistory}. The active version is what
 * {@link ActivationRule} says over what the operator has published (accepted versions with their control sequence) and
 * the last control record, i.e. what every reader of the two topics computes. Metrics: counters
 * {@code controlsApplied}, {@code controlsIgnored}, {@code publishesHeldForReadBack}.
 */
final class ActiveVersion {
    /** The operator's logger: these lines were logged under its name before this class was split from it. */
    private static final Logger LOG = LoggerFactory.getLogger(ScopeFitFunction.class);

    private final ValueState<SnapshotControl> control;
    /** The newest version the scope's state published, in any status (null: none). */
    private final ValueState<Long> version;
    private final VersionHistory versions;
    /** This subtask's scopes' active snapshots on the params topic at submission, until each scope looks. */
    private final ActiveAtStart activeAtStart;
    private final PinnedVersionLookups pinnedLookups;
    private final PinsAhead pinsAhead;
    private final Counter controlsApplied;
    private final Counter controlsIgnored;
    private final Counter publishesHeld;

    ActiveVersion(ValueState<SnapshotControl> control, ValueState<Long> version, VersionHistory versions,
                  ActiveAtStart activeAtStart, PinnedVersionLookups pinnedLookups, PinsAhead pinsAhead,
                  Counter controlsApplied, Counter controlsIgnored, Counter publishesHeld) {
        this.control = control;
        this.version = version;
        this.versions = versions;
        this.activeAtStart = activeAtStart;
        this.pinnedLookups = pinnedLookups;
        this.pinsAhead = pinsAhead;
        this.controlsApplied = controlsApplied;
        this.controlsIgnored = controlsIgnored;
        this.publishesHeld = publishesHeld;
    }

    /** The last applied control record, or null. */
    SnapshotControl lastControl() throws Exception {
        return control.value();
    }

    /** The active snapshot per {@link ActivationRule} over this scope's accepted versions and control, or null. */
    ParameterSnapshot snapshot(String scope) throws Exception {
        adoptActiveOnTopic(scope);
        adoptNamedOnTopic(scope);
        return versions.active(scope, control.value());
    }

    /** Applies a control record unless its sequence is not above the applied one (then false). */
    boolean applyControl(SnapshotControl record, String scope) throws Exception {
        adoptActiveOnTopic(scope); // before the check below: a PIN may name it
        SnapshotControl current = control.value();
        if (current != null && record.getSequence() <= current.getSequence()) {
            controlsIgnored.inc();
            LOG.info("scope {}: control sequence {} ignored (applied {})", record.getScope(), record.getSequence(),
                current.getSequence());
            return false;
        }
        control.update(record);
        controlsApplied.inc();
        LOG.info("scope {}: applied control {} version {} sequence {} ({})", record.getScope(), record.getAction(),
            record.getVersion(), record.getSequence(), record.getReason());
        pinsAhead.onApplied(record, scope); // a version not published yet (a WARN there): no topic holds it to read
        if (record.getVersion() != null && pinsAhead.names(record.getVersion())) {
            return true;
        }
        if (!pinnedLookups.canRead() && record.getVersion() != null && !versions.keeps(record.getVersion())) {
            // a PIN's version, or an UNPIN's (active until a snapshot stamped with its sequence is accepted)
            LOG.warn("scope {}: {} of version {}, which is not an accepted version this job keeps, and the job "
                + "was given no params topic to read it from; the scope has no active version the job can gate "
                + "against until {}", record.getScope(), record.getAction(), record.getVersion(),
                record.getAction() == ControlAction.PIN ? "it is" : "a snapshot is accepted after this UNPIN");
        } else if (namesUnkeptActiveVersion(record)) {
            adoptNamedOnTopic(scope); // starts the read now, for the next tick
        }
        return true;
    }

    /**
     * Whether the scope's publication waits (counted in {@code publishesHeldForReadBack}): its control record makes
     * active a version the history does not keep, and the read back from the params topic ({@link #adoptNamedOnTopic})
     * has not found it yet: under way, or failed (retried after a minute). Its snapshot would otherwise be gated against
     * nothing and carry DESIGN's defaults, or, after an UNPIN, be gated against the newest version kept, and then go
     * live. Only a read that positively found nothing (not on the topic as ACCEPTED) lets it publish, as for a first
     * snapshot; so does a job given no topic to read from.
     */
    boolean holdsPublication(String scope) throws Exception {
        adoptNamedOnTopic(scope);
        SnapshotControl ctl = control.value();
        boolean held = pinnedLookups.canRead() && namesUnkeptActiveVersion(ctl)
            && !pinnedLookups.foundNothing(scope, ctl.getVersion());
        if (held) {
            publishesHeld.inc();
        }
        return held;
    }

    /** Publications held back while a version was read back (the {@code publishesHeldForReadBack} metric). */
    long publishesHeldCount() {
        return publishesHeld.getCount();
    }

    /**
     * Whether {@code c} makes active, per {@link ActivationRule}, a version the history does not keep: a PIN's version;
     * an UNPIN's until an accepted version stamped with its sequence or a later one is kept (the pinned version stays
     * active until then: an UNPIN that came before the PIN's version was read back must not leave the scope without it).
     */
    private boolean namesUnkeptActiveVersion(SnapshotControl c) throws Exception {
        if (c == null || c.getVersion() == null || versions.keeps(c.getVersion())
                || c.getVersion() > pinsAhead.latest(c.getScope().toString())) {
            // A version not published yet is on no topic (a PIN of it: published REJECTED, PinsAhead); an UNPIN of
            // one is no reason to scan the topic for it and hold the scope's publishing meanwhile.
            return false;
        }
        if (c.getAction() == ControlAction.PIN) {
            return true;
        }
        // An UNPIN: what could not be read (no topic, or not on it) is not looked for at every tick, nor is every kept
        // version's stamp scanned for it.
        String scope = c.getScope().toString();
        return pinnedLookups.canRead() && !pinnedLookups.foundNothing(scope, c.getVersion())
            && !versions.acceptedSince(c.getSequence());
    }

    /**
     * A control record that makes active a version the history does not keep (trimmed after {@code --history-versions}
     * newer ones, or published before a start without state) has it read back from the params topic
     * ({@link PinnedVersionLookups}, off the task thread) and kept as an accepted version stamped with its own control
     * sequence, as if never trimmed: the rule then makes it active here as every reader does, and trimming keeps it while
     * a control record names it. Until the read has found it the scope's ticks wait ({@link #holdsPublication}), also
     * while a failed read waits for its retry; when it finds nothing the scope has no active version, and its candidates
     * are gated against nothing.
     */
    private void adoptNamedOnTopic(String scope) throws Exception {
        SnapshotControl ctl = control.value();
        if (!namesUnkeptActiveVersion(ctl)) {
            return;
        }
        ParameterSnapshot s = pinnedLookups.poll(scope, ctl.getVersion());
        if (s != null) {
            versions.keep(s, s.getQuantileModel(), s.getControlSequence(), null, ctl);
        }
    }

    /**
     * A scope whose state never published (the job started without checkpoint or savepoint) keeps the snapshot the
     * params topic had active at submission as an accepted version, stamped with its own control sequence, so the rule
     * makes it active here as every reader does: the first candidate is gated against it (parent, jump checks) and
     * carries from it what the fit cannot determine yet (α's, λ, the admission wait, the forest) instead of the DESIGN
     * defaults, which the rule would otherwise have activated everywhere. State that published wins: it is the job's own
     * history.
     */
    private void adoptActiveOnTopic(String scope) throws Exception {
        if (!activeAtStart.has(scope)) {
            return;
        }
        if (version.value() != null) {
            activeAtStart.drop(scope);
            return;
        }
        ParameterSnapshot s = activeAtStart.take(scope);
        versions.keep(s, s.getQuantileModel(), s.getControlSequence(), null, control.value());
        LOG.info("scope {}: no state of its own: version {} (control sequence {}, {}), active on the params topic at "
            + "submission, is its active version", scope, s.getVersion(), s.getControlSequence(),
            s.getQuantileModel() == null ? "no quantile model" : "quantile model of version " + s.getQuantileModelVersion());
    }
}
