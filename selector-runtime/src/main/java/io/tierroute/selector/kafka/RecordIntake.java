package io.tierroute.selector.kafka;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.RecordDecodeException;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.snapshot.ActivationRule;
import io.tierroute.schemas.snapshot.ControlRecordCheck;
import io.tierroute.selector.kafka.ParameterLoader.BadReason;
import io.tierroute.selector.kafka.SnapshotRecordReader.Where;
import io.tierroute.selector.logging.LogLimiter;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

/**
 * What the {@link ParameterLoader} does with each record it reads from {@code tierroute.params} and
 * {@code tierroute.control}: decodes what the {@link ActivationRule} needs, checks it and feeds it to the session's
 * rule; of the served scope it also keeps the snapshot records ({@link ServedScopeRecords}). Of a snapshot only the
 * identifying fields are decoded ({@link SnapshotProjection}), so catch-up builds no forest: the whole snapshot is
 * decoded once its version becomes active ({@link ActiveVersionSwap}). Undecodable bytes, an unknown writer schema, and
 * records whose values the selector cannot use go to the {@link BadRecordReport}; the active set stays. Loader thread
 * only, but for the counts (any thread).
 */
final class RecordIntake {

    private static final Logger log = LoggerFactory.getLogger(ParameterLoader.class); // the loader's messages, its logger

    private final String scope;
    private final SnapshotProjection projection = new SnapshotProjection();
    private final ServedScopeRecords records;
    private final ActiveVersionSwap swap;
    private final LoaderStatus status;
    private final BadRecordReport bad;
    private final LogLimiter badLog;
    private final BooleanSupplier ready;
    private final LongAdder paramsRecords = new LongAdder();
    private final LongAdder controlRecords = new LongAdder();
    private final LongAdder staleControl = new LongAdder();

    /**
     * @param scope   the served scope
     * @param records keeps the served scope's snapshot records
     * @param swap    told when a version it gave up is published again
     * @param status  told when a record names the served scope
     * @param bad     reports a bad record
     * @param badLog  limits the WARNs (shared with the loader's other problem lines)
     * @param ready   whether the loader has reported ready
     */
    RecordIntake(String scope, ServedScopeRecords records, ActiveVersionSwap swap, LoaderStatus status,
            BadRecordReport bad, LogLimiter badLog, BooleanSupplier ready) {
        this.scope = scope;
        this.records = records;
        this.swap = swap;
        this.status = status;
        this.bad = bad;
        this.badLog = badLog;
        this.ready = ready;
    }

    /**
     * A record of either topic, into {@code rule}.
     *
     * @param caughtUp whether this session has read up to the end offsets at its start (a stale control record read
     *                 before is history, after it news)
     */
    void onRecord(ConsumerRecord<byte[], byte[]> r, ActivationRule rule, boolean caughtUp) {
        if (r.topic().equals(Topics.PARAMS)) {
            onParams(r, rule);
        } else {
            onControl(r, rule, caughtUp);
        }
    }

    private void onParams(ConsumerRecord<byte[], byte[]> r, ActivationRule rule) {
        paramsRecords.increment();
        if (r.value() == null) {
            onParamsTombstone(r, rule);
            return;
        }
        SnapshotProjection.Head h;
        try {
            h = projection.read(r.value());
        } catch (RecordDecodeException e) {
            bad.report(Topics.PARAMS, BadReason.of(e), r, e.getMessage());
            return;
        }
        if (h.version() < 1) {
            bad.report(Topics.PARAMS, BadReason.UNUSABLE, r, "snapshot version " + h.version() + " < 1");
            return;
        }
        if (h.version() > ControlRecordCheck.MAX_VERSION) { // the rule ignores it too: said here, not only skipped
            bad.report(Topics.PARAMS, BadReason.UNUSABLE, r, "snapshot version " + h.version() + " > "
                    + ControlRecordCheck.MAX_VERSION + " (2^62): no fitting job numbers so high");
            return;
        }
        rule.onSnapshot(h.scope(), h.version(), h.status(), h.controlSequence());
        if (!h.scope().equals(scope)) {
            return;
        }
        status.servedScopeNamed();
        records.onRecord(h.version(), h.status(), h.carriesModel(), new Where(r.partition(), r.offset()), r.value());
        if (h.status() == SnapshotStatus.ACCEPTED) {
            swap.republished(h.version());
        }
    }

    /** A tombstone deletes a version (history trimming): it can no longer become active. */
    private void onParamsTombstone(ConsumerRecord<byte[], byte[]> r, ActivationRule rule) {
        Topics.ParamsKey k = Topics.ParamsKey.parse(r.key());
        if (k == null) {
            bad.report(Topics.PARAMS, BadReason.TOMBSTONE, r, "tombstone with key '"
                    + (r.key() == null ? "" : new String(r.key(), StandardCharsets.UTF_8)) + "' that names no scope#version");
            return;
        }
        long version = k.version();
        String s = k.scope();
        rule.onSnapshot(s, version, SnapshotStatus.REJECTED, 0);
        if (s.equals(scope)) {
            records.onTombstone(version);
        }
    }

    private void onControl(ConsumerRecord<byte[], byte[]> r, ActivationRule rule, boolean caughtUp) {
        controlRecords.increment();
        if (r.value() == null) {
            bad.report(Topics.CONTROL, BadReason.TOMBSTONE, r, "control tombstone ignored: a scope's pin state is only "
                    + "changed by a PIN or UNPIN record");
            return;
        }
        SnapshotControl control;
        try {
            control = Codecs.SNAPSHOT_CONTROL.decode(r.value());
        } catch (RecordDecodeException e) {
            bad.report(Topics.CONTROL, BadReason.of(e), r, e.getMessage());
            return;
        }
        if (control.getAction() == ControlAction.PIN && control.getVersion() == null) {
            bad.report(Topics.CONTROL, BadReason.UNUSABLE, r, "PIN of scope '" + control.getScope()
                    + "' names no version");
            return;
        }
        String problem = ControlRecordCheck.problem(control);
        if (problem != null) { // the rule ignores it too, but it is not stale: say what is wrong with it
            bad.report(Topics.CONTROL, BadReason.UNUSABLE, r, "control record of scope '" + control.getScope()
                    + "' ignored: " + problem);
            return;
        }
        if (!rule.onControl(control)) {
            onStaleControl(r, control, rule, caughtUp);
            return;
        }
        if (control.getScope().toString().equals(scope)) {
            status.servedScopeNamed();
        }
        if (ready.getAsBoolean() || control.getScope().toString().equals(scope)) {
            log.info("params loader: control of scope '{}': {} version {} (sequence {}, by {}: {})", control.getScope(),
                    control.getAction(), control.getVersion(), control.getSequence(), control.getActor(),
                    control.getReason());
        }
    }

    /**
     * A control record whose sequence is not above its scope's last one. Read during catch-up it is history: a writer
     * that lost a race long ago (the writers' fence lets it through only after another took the sequence), ignored by
     * every reader alike and reported when it was written, so INFO. After catch-up it is news, so WARN: two writers
     * racing, or a control topic that is no longer the history this loader read (the reset that should follow is in
     * the log too, see {@link HistoryIdentity}).
     */
    private void onStaleControl(ConsumerRecord<byte[], byte[]> r, SnapshotControl control, ActivationRule rule,
            boolean caughtUp) {
        staleControl.increment();
        String s = control.getScope().toString();
        if (!caughtUp) {
            log.info("params loader: ignoring control record sequence {} of scope '{}' (already at {})",
                    control.getSequence(), s, rule.controlSequence(s));
        } else if (badLog.allow()) {
            log.warn("params loader: ignoring control record sequence {} of scope '{}' at {}@{}:{}: the scope is at "
                            + "sequence {} already (another writer took that sequence first, or the control topic "
                            + "was replaced)", control.getSequence(), s, r.topic(), r.partition(), r.offset(),
                    rule.controlSequence(s));
        }
    }

    long paramsRecords() {
        return paramsRecords.sum();
    }

    long controlRecords() {
        return controlRecords.sum();
    }

    long staleControlRecords() {
        return staleControl.sum();
    }
}
