package io.tierroute.jobs.fit;

import io.tierroute.jobs.JobSettings;
import io.tierroute.jobs.ingest.TelemetrySample;
import java.util.List;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.metrics.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds the current scope's inputs to its estimators and replay buffers, and finds those estimators: in memory
 * ({@link LiveScopes}) or, after a (re)start or an idle scope's eviction, new ones rebuilt from the replay buffers.
 * Metrics: counters {@code inputsRejectedByEstimators}, {@code telemetryPastLinkSilence}.
 */
final class EstimatorFeed {
    /** The operator's logger: these lines were logged under its name before this class was split from it. */
    private static final Logger LOG = LoggerFactory.getLogger(ScopeFitFunction.class);

    private final JobSettings settings;
    private final LiveScopes live;
    private final ReplayBuffers buffers;
    private final ValueState<ScopeCounters> counters;
    private final ActiveVersion active;
    private final EstimatorRefusals refusals;
    private final Counter rejectedInputs;
    /** Telemetry samples that came more than {@link ScopeEstimators#LINK_SILENCE_MS} behind the job's event time. */
    private final Counter pastLinkSilence;

    EstimatorFeed(JobSettings settings, LiveScopes live, ReplayBuffers buffers, ValueState<ScopeCounters> counters,
                  ActiveVersion active, EstimatorRefusals refusals, Counter rejectedInputs, Counter pastLinkSilence) {
        this.settings = settings;
        this.live = live;
        this.buffers = buffers;
        this.counters = counters;
        this.active = active;
        this.refusals = refusals;
        this.rejectedInputs = rejectedInputs;
        this.pastLinkSilence = pastLinkSilence;
    }

    /**
     * Feeds one input to the scope's estimators and replay buffers and marks the scope dirty.
     *
     * @param eventTimeMs the job's event time (the watermark, or in event-time mode the tick applying it)
     */
    void apply(ScopeInput in, String scope, ScopeCounters c, long eventTimeMs) throws Exception {
        ScopeEstimators est = estimators(scope);
        live.inputTo(est);
        if (in.telemetry != null) {
            countIfPastLinkSilence(in.telemetry, scope, eventTimeMs);
            if (!est.add(in.telemetry)) {
                rejectedInputs.inc();
            }
            buffers.addTelemetry(in.telemetry, c);
        } else {
            if (!est.add(in.joined)) {
                rejectedInputs.inc();
            }
            c.rowsSinceForest++;
            buffers.addRow(in.joined, c);
        }
        c.dirty = true;
    }

    /**
     * A telemetry sample more than {@link ScopeEstimators#LINK_SILENCE_MS} behind the job's event time is still applied
     * (as late input is), but the next publish retires the links it feeds as silent, so its ρ never reaches a snapshot
     * unless fresher samples of the link follow: counted and logged at the 1st, 2nd, 4th, … occurrence (as late input
     * in event-time mode), so a producer running that far behind shows instead of its workers' ρ silently missing.
     */
    private void countIfPastLinkSilence(TelemetrySample t, String scope, long eventTimeMs) {
        if (eventTimeMs == Long.MIN_VALUE || eventTimeMs == Long.MAX_VALUE // no event time yet; the input ended
                || t.timestampMs >= eventTimeMs - ScopeEstimators.LINK_SILENCE_MS) {
            return;
        }
        pastLinkSilence.inc();
        long n = pastLinkSilence.getCount();
        if (Long.bitCount(n) == 1) {
            LOG.warn("{} telemetry sample(s) more than {} s behind the job's event time so far (this one: scope {} "
                + "worker {} at {}, event time {}): applied, but the ρ of their links is dropped as silent at the next "
                + "publish (a producer or topic partition that far behind)", n, ScopeEstimators.LINK_SILENCE_MS / 1000,
                scope, t.worker, t.timestampMs, eventTimeMs);
        }
    }

    /** Telemetry samples that came more than the links' silence behind event time (the {@code telemetryPastLinkSilence} metric). */
    long pastLinkSilenceCount() {
        return pastLinkSilence.getCount();
    }

    /** The scope's estimators; after a (re)start, rebuilt from the replay buffers first. */
    ScopeEstimators estimators(String scope) throws Exception {
        ScopeEstimators est = live.get(scope);
        if (est == null) {
            est = new ScopeEstimators(scope, settings.regressionHorizonRows(), settings.regressionRefitRows(),
                settings.sampleRows());
            List<BandwidthChange> changes = buffers.bandwidthChanges();
            if (changes.isEmpty()) {
                est.useBandwidths(active.snapshot(scope)); // no change recorded (yet): the defaults or the active BW_t
            }
            long[] replayed = buffers.replayInto(est, storedCounters(), changes);
            if (replayed[0] + replayed[1] > 0) {
                LOG.info("scope {}: estimators rebuilt from {} telemetry samples and {} joined rows", scope, replayed[0],
                    replayed[1]);
            }
            est.countRefusalsIn(refusals); // after the replay: those rows were counted when they arrived
            live.put(scope, est);
        }
        return est;
    }

    private ScopeCounters storedCounters() throws Exception {
        ScopeCounters c = counters.value();
        return c != null ? c : new ScopeCounters();
    }

    /** Inputs the estimators refused whole (the {@code inputsRejectedByEstimators} metric). */
    long rejectedInputCount() {
        return rejectedInputs.getCount();
    }
}
