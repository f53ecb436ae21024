package io.tierroute.jobs.fit;

import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.snapshot.ActivationRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.metrics.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The versions a PIN named before the scope had published them, over {@link ScopeFitFunction}'s keyed map state
 * {@code pinsAhead} (version → the PIN's sequence). {@link ActivationRule} activates a pinned version as soon as it is
 * accepted, so the job's own candidate of that number, fitted after the pin and gated against nothing (nothing is
 * active under a pin of an unknown version), would have become the pinned version of every reader: the job publishes it REJECTED instead, while the pin holds
 * (DESIGN.md §5: no fitted snapshot slips past a pin). Counter {@code snapshotsPinnedBeforeTheyExisted}.
 */
final class PinsAhead {
    /** The operator's logger: these lines belong with its other lines about control records. */
    private static final Logger LOG = LoggerFactory.getLogger(ScopeFitFunction.class);

    private final MapState<Long, Long> named;
    /** The newest version the scope's state published, in any status (null: none). */
    private final ValueState<Long> version;
    /** Newest version per scope on the params topic when the job was started. */
    private final Map<String, Long> publishedVersions;
    private final Counter rejected;

    PinsAhead(MapState<Long, Long> named, ValueState<Long> version, Map<String, Long> publishedVersions,
              Counter rejected) {
        this.named = named;
        this.version = version;
        this.publishedVersions = publishedVersions;
        this.rejected = rejected;
    }

    /** The newest version of the scope, here or on the topic at submission, in any status (0: none); the next is one more. */
    long latest(String scope) throws Exception {
        Long v = version.value();
        return Math.max(v == null ? 0 : v, publishedVersions.getOrDefault(scope, 0L));
    }

    /**
     * Remembers the version an applied PIN names when the scope has not published it yet, and forgets any other: a
     * remembered version matters only while the scope's control pins it (replaced by an UNPIN or a PIN of another
     * version, it would throw away a snapshot that could become active).
     */
    void onApplied(SnapshotControl c, String scope) throws Exception {
        Long pinned = c.getAction() == ControlAction.PIN ? c.getVersion() : null;
        forget(k -> !k.equals(pinned));
        if (pinned == null) {
            return;
        }
        long latest = latest(scope);
        if (c.getVersion() > latest) {
            named.put(c.getVersion(), c.getSequence());
            LOG.warn("scope {}: PIN (sequence {}) of version {}, which does not exist yet (newest {}): the job will "
                + "publish that version REJECTED, and nothing is active while the pin holds", scope, c.getSequence(),
                c.getVersion(), latest);
        }
    }

    /** Whether a PIN named {@code v} before it existed and the job has not published it yet. */
    boolean names(long v) throws Exception {
        return named.contains(v);
    }

    /**
     * Why version {@code v}, about to be published, must be REJECTED, or null; forgets {@code v} and anything below
     * (a start without state may have skipped past a version: it exists on the topic, published by an earlier run).
     */
    String rejectionOf(long v) throws Exception {
        Long sequence = named.get(v);
        forget(k -> k <= v);
        if (sequence == null) {
            return null;
        }
        rejected.inc();
        return "a PIN (control sequence " + sequence + ") named version " + v + " before it existed: a fitted "
            + "snapshot must not become the pinned version";
    }

    private void forget(Predicate<Long> which) throws Exception {
        List<Long> gone = new ArrayList<>();
        for (Long k : named.keys()) {
            if (which.test(k)) {
                gone.add(k);
            }
        }
        for (Long k : gone) {
            named.remove(k);
        }
    }

    /** Snapshots published REJECTED for this reason (the {@code snapshotsPinnedBeforeTheyExisted} metric). */
    long rejectedCount() {
        return rejected.getCount();
    }
}
