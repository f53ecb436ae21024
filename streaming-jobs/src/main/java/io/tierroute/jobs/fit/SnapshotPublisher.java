package io.tierroute.jobs.fit;

import io.tierroute.fitter.bandwidth.LinkKey;
import io.tierroute.fitter.regression.LatencyFit;
import io.tierroute.fitter.snapshot.FitResults;
import io.tierroute.fitter.snapshot.GateConfig;
import io.tierroute.fitter.snapshot.GateResult;
import io.tierroute.fitter.snapshot.ModelReferences;
import io.tierroute.fitter.snapshot.SnapshotAssembler;
import io.tierroute.fitter.snapshot.ValidationGate;
import io.tierroute.jobs.JobSettings;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.snapshot.ActivationRule;
import io.tierroute.schemas.snapshot.ControlRecordCheck;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the current scope's snapshot: assembles a candidate from the estimators, validates it against the
 * <em>active</em> version ({@link ActiveVersion}) and emits it, ACCEPTED or REJECTED, stamped with the scope's last
 * applied control sequence. While a scope is pinned the candidate's parent is the pinned version and the gate compares
 * against it; {@link ActivationRule} never activates those snapshots, so a pinned scope is never overwritten. A version
 * a PIN named before it existed is published REJECTED ({@link PinsAhead}), lest it become the pinned version. A scope
 * whose next version would pass {@link ControlRecordCheck#MAX_VERSION} publishes nothing. Metrics: counters
 * {@code snapshotsAccepted}, {@code snapshotsRejected}, {@code publishesHeldAtMaxVersion}.
 */
final class SnapshotPublisher {
    /** The operator's logger: these lines were logged under its name before this class was split from it. */
    private static final Logger LOG = LoggerFactory.getLogger(ScopeFitFunction.class);
    private static final long MAX_VERSION_ERROR_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final SnapshotAssembler assembler;
    private final ValidationGate gate;
    private final int minFitSamples;
    /** The newest version the scope's state published, in any status; the next is one more. */
    private final ValueState<Long> version;
    /** The scope's newest version (its state's, or the topic's at submission); versions a PIN named before they existed. */
    private final PinsAhead pinsAhead;
    private final ActiveVersion active;
    private final VersionHistory versions;
    private final RefusedJumps refusedJumps;
    private final ForestTraining forests;
    private final ForestCarriers carriers;
    private final ReplayBuffers buffers;
    private final Counter snapshotsAccepted;
    private final Counter snapshotsRejected;
    private final Counter heldAtMaxVersion;
    private final Counter linksDroppedAtCap;
    private final PerScopeLogLimit maxVersionErrors = new PerScopeLogLimit(MAX_VERSION_ERROR_EVERY_NANOS);

    /** @param clockMs the snapshots' createdAtMs: the wall clock, or in event-time mode the tick being published */
    SnapshotPublisher(JobSettings settings, LongSupplier clockMs, ValueState<Long> version, PinsAhead pinsAhead,
                      ActiveVersion active, VersionHistory versions,
                      RefusedJumps refusedJumps, ForestTraining forests, ForestCarriers carriers, ReplayBuffers buffers,
                      Counter snapshotsAccepted, Counter snapshotsRejected, Counter heldAtMaxVersion,
                      Counter linksDroppedAtCap) {
        this.assembler = new SnapshotAssembler(settings.jobName(), clockMs);
        this.gate = new ValidationGate(GateConfig.DEFAULTS.withMinSamples(settings.gateMinSamples())
            .withMinR2(settings.gateMinR2()).withMaxJumpFactor(settings.gateMaxJumpFactor()));
        this.minFitSamples = settings.minFitSamples();
        this.version = version;
        this.pinsAhead = pinsAhead;
        this.active = active;
        this.versions = versions;
        this.refusedJumps = refusedJumps;
        this.forests = forests;
        this.carriers = carriers;
        this.buffers = buffers;
        this.snapshotsAccepted = snapshotsAccepted;
        this.snapshotsRejected = snapshotsRejected;
        this.heldAtMaxVersion = heldAtMaxVersion;
        this.linksDroppedAtCap = linksDroppedAtCap;
    }

    /** The first ten links, for a log line. */
    private static String named(List<LinkKey> links) {
        return links.stream().limit(10).map(k -> k.worker() + "/" + k.tier()).toList() + (links.size() > 10 ? " …" : "");
    }

    /**
     * Publishes a snapshot of {@code est}'s fits, unless it has no data yet.
     *
     * @param eventTimeMs the job's event time (the tick, or the watermark): links silent since long are dropped
     */
    void publish(String scope, ScopeEstimators est, ScopeCounters c, long eventTimeMs, Collector<ParameterSnapshot> out)
            throws Exception {
        if (!est.hasData()) {
            return;
        }
        List<LinkKey> retired = est.retireSilentLinks(eventTimeMs);
        if (!retired.isEmpty()) {
            LOG.info("scope {}: dropped the ρ of {} link(s) without telemetry for {} s of event time: {}", scope,
                retired.size(), ScopeEstimators.LINK_SILENCE_MS / 1000, named(retired));
        }
        List<LinkKey> capped = est.capLinks();
        if (!capped.isEmpty()) {
            linksDroppedAtCap.inc(capped.size());
            LOG.warn("scope {}: dropped the ρ of the {} link(s) least recently heard from, beyond the {} a scope fits "
                + "(is the job's event time stalled by a lagging input partition?): {}", scope, capped.size(),
                ScopeEstimators.MAX_LINKS, named(capped));
        }
        long latest = pinsAhead.latest(scope);
        if (latest >= ControlRecordCheck.MAX_VERSION) {
            // Every reader ignores a version past the bound: published, it would be lost silently, and all after it.
            heldAtMaxVersion.inc();
            if (maxVersionErrors.allow(scope, System.nanoTime())) {
                LOG.error("scope {}: publishes nothing: its newest version {} is the largest readers take "
                    + "(ControlRecordCheck.MAX_VERSION = 2^62), so its next one would be ignored by every reader; the "
                    + "scope's version sequence is exhausted (counter publishesHeldAtMaxVersion; logged at most once a "
                    + "minute per scope). A version that high comes from a hand-written record: tombstone its key "
                    + "on tierroute.params and start the job afresh for this scope", scope, latest);
            }
            return;
        }
        SnapshotControl ctl = active.lastControl();
        ParameterSnapshot activeSnapshot = active.snapshot(scope);
        QuantileForestModel fresh = forests.pending();
        FitResults fits = est.fits(minFitSamples, gate.config().minBandwidthSamples(), fresh);
        ParameterSnapshot candidate = assembler.assemble(scope, latest, activeSnapshot, fits);
        GateResult result = gate.validate(candidate, activeSnapshot, refusedJumps.watch());
        ParameterSnapshot gated = result.snapshot();
        String pinnedAhead = pinsAhead.rejectionOf(gated.getVersion());
        boolean accepted = result.accepted() && pinnedAhead == null;
        if (pinnedAhead != null) {
            // first, so that a record cut to its size limit still lists it (RecordBudget)
            List<String> reasons = new ArrayList<>(gated.getRejectReasons());
            reasons.add(0, pinnedAhead);
            gated = ParameterSnapshot.newBuilder(gated).setStatus(SnapshotStatus.REJECTED).setRejectReasons(reasons)
                .build();
            LOG.warn("scope {}: version {} published REJECTED: {}", scope, gated.getVersion(), pinnedAhead);
        }
        // After the gate: it may hold a BW_t jump and publish the active BW_t, and it compares ρ with the active ρ,
        // both measured against the BW_t in use; what is published is ρ against the BW_t the record carries.
        est.rhoOnTheCarriedBandwidths(gated);
        long sequence = ctl == null ? 0 : ctl.getSequence();
        gated.setControlSequence(sequence);
        long v = gated.getVersion();
        version.update(v);
        if (pinnedAhead == null) { // the refusal was not the gate's: what it saw of the jumps is not taken up
            refusedJumps.keepAfter(result);
        }
        RecordBudget.Fitted fitted = RecordBudget.fit(ModelReferences.forPublication(gated,
            carriers.known(scope, activeSnapshot, fresh, forests.pendingCarrier())), RecordBudget.BYTES);
        ParameterSnapshot snapshot = fitted.snapshot();
        if (fitted.droppedRho() > 0 || fitted.droppedReasons() > 0) {
            LOG.warn("scope {}: version {} leaves out the {} lowest of its {} ρ entries (readers take them as ρ = 0) "
                + "and lists {} fewer reasons, to fit one params record of {} bytes", scope, v, fitted.droppedRho(),
                gated.getRho().size(), fitted.droppedReasons(), RecordBudget.BYTES);
        }
        if (fresh != null && snapshot.getQuantileModel() != null && snapshot.getQuantileModel().equals(fresh)) {
            forests.pendingPublishedIn(v); // later records, accepted or not, refer to this one
        }
        if (snapshot.getQuantileModel() != null) {
            carriers.published(scope, v, snapshot.getQuantileModel());
        }
        if (accepted) {
            snapshotsAccepted.inc();
            // Kept pending while the scope is pinned: the version carrying it is not active, and the next snapshots
            // are assembled against the pinned one; dropped there, the model was lost at the unpin (a QA run saw the
            // pinned version's older forest served until the next training).
            boolean pinned = ctl != null && ctl.getAction() == ControlAction.PIN;
            if (versions.keep(snapshot, gated.getQuantileModel(), sequence, fresh, ctl) && !pinned) {
                forests.pendingKept();
            }
            if (est.useBandwidths(snapshot)) {
                buffers.addBandwidthChange(est.bandwidths(buffers.telemetryPosition(c)));
            }
        } else {
            snapshotsRejected.inc();
        }
        // The gate's notes (a jump on overwhelming evidence, an imprecise fit applied because the data contradict the
        // value in force) are not in the record: the log is where an operator sees them. A rejected snapshot applies
        // nothing, so its notes would mislead.
        LOG.info("scope {}: published version {} {} (parent {}, control sequence {}){}{}{}", scope, v,
            snapshot.getStatus(), snapshot.getParentVersion(), sequence,
            snapshot.getRejectReasons().isEmpty() ? "" : ": " + snapshot.getRejectReasons(),
            !accepted || result.notes().isEmpty() ? "" : "; gate notes: " + result.notes(),
            interceptNote(fits));
        out.collect(snapshot);
    }

    /**
     * The regression's intercept, the fixed time every worker adds to a TTFT: no price of a choice, so the snapshot does
     * not carry it, and the log is where an operator sees it. A negative one says the α's carry more than their share.
     */
    private static String interceptNote(FitResults fits) {
        LatencyFit l = fits.latency();
        if (l == null || l.samples() == 0) { // no regression yet (nothing, or the telemetry priors)
            return "";
        }
        return String.format(Locale.ROOT, "; TTFT intercept %.0f ± %.0f µs on %d rows", l.intercept(),
            l.interceptStdError(), l.samples());
    }
}
