package io.tierroute.jobs.fit;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/**
 * The fitting operator's counters of what an estimator inside a scope refuses beyond the row as a whole (the row
 * itself, refused by the regression or the priors, is {@code inputsRejectedByEstimators}): each was tallied only in the
 * fitter's in-memory outcome counts, which no one reads. Only live input counts: the {@link ScopeEstimators} a restore or
 * an idle scope's return rebuilds from the replay buffers are attached after their replay, so a row counts once.
 */
final class EstimatorRefusals {
    /** Telemetry link samples the ρ tracker refused (duplicate, out of order, zero interval, …): one per link. */
    final Counter rhoLinkSamples;
    /** λ observations the affinity-decay fit refused (idle time beyond 7 days, a miss after no idle time, …). */
    final Counter decayObservations;
    /** Admission-wait rows the KV-wait fit leaves out as unusable ({@code KvWaitFit.skippedRows}). */
    final Counter kvWaitRows;
    /** Admission-wait rows left out of the decode step: decode time per predicted token past τ₀'s bound (1 s). */
    final Counter kvWaitDecodeRowsPastBound;
    /** Joined rows the latency regression leaves out: their decision's schema had no queued prefill (v1). */
    final Counter latencyRowsWithoutQueuedPrefill;
    /** Joined rows the latency regression leaves out: their decision cut a congested tier off (p_eff not computed). */
    final Counter latencyRowsCutOff;

    EstimatorRefusals(MetricGroup metrics) {
        rhoLinkSamples = metrics.counter("rhoLinkSamplesRefused");
        decayObservations = metrics.counter("decayObservationsRefused");
        kvWaitRows = metrics.counter("kvWaitRowsUnusable");
        kvWaitDecodeRowsPastBound = metrics.counter("kvWaitDecodeRowsPastTauBound");
        latencyRowsWithoutQueuedPrefill = metrics.counter("latencyRowsWithoutQueuedPrefill");
        latencyRowsCutOff = metrics.counter("latencyRowsCutOff");
    }
}
