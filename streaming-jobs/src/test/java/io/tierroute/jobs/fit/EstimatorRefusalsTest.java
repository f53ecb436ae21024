package io.tierroute.jobs.fit;

import static io.tierroute.jobs.fit.FitHarness.TICK;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.jobs.ingest.CostRegressors;
import io.tierroute.jobs.ingest.TelemetrySample;
import io.tierroute.jobs.join.JoinedRow;
import io.tierroute.schemas.avro.ParameterSnapshot;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.junit.jupiter.api.Test;

/**
 * What the ρ tracker, the λ fit and the admission wait's fit refuse inside rows the operator accepted is counted in
 * the operator's metrics ({@code rhoLinkSamplesRefused}, {@code decayObservationsRefused}, {@code kvWaitRowsUnusable},
 * {@code kvWaitDecodeRowsPastTauBound}), and the rows the regression leaves out for a decision of the older schema
 * ({@code latencyRowsWithoutQueuedPrefill}) or one that cut a congested tier off ({@code latencyRowsCutOff}), once: the replay that rebuilds the estimators after a restore counts nothing again.
 */
class EstimatorRefusalsTest {
    private static final long START = 1_700_000_000_000L;

    /** A row with the admission wait's fields and a λ observation (a return hit after {@code idleSeconds}). */
    private static JoinedRow row(SplittableRandom rnd, long eventTimeMs, double idleSeconds, double decodeUs) {
        JoinedRow r = FitHarness.row("default", eventTimeMs, rnd);
        r.returnIdleSeconds = idleSeconds;
        r.cacheHit = true;
        r.admission.kvUsedTokens = 40_000;
        r.admission.predictedOutputTokens = 128;
        r.admission.missingKvTokens = 0;
        r.admission.inFlight = 3;
        r.admission.predictedPrefillUs = 4_000;
        r.admission.predictedQueueUs = 500;
        r.decodeUs = decodeUs;
        r.queueWaitUs = 700;
        r.prefillUs = 4_300;
        return r;
    }

    private static long[] counts(FitHarness f) {
        EstimatorRefusals r = f.function().refusals();
        return new long[] {r.rhoLinkSamples.getCount(), r.decayObservations.getCount(), r.kvWaitRows.getCount(),
            r.kvWaitDecodeRowsPastBound.getCount(), r.latencyRowsWithoutQueuedPrefill.getCount(),
            r.latencyRowsCutOff.getCount()};
    }

    @Test
    void refusalsInsideAcceptedRowsAreCountedOnce() throws Exception {
        SplittableRandom rnd = new SplittableRandom(7);
        FitHarness f = FitHarness.open(FitHarness.settings().build());
        f.h.setProcessingTime(0);
        for (int i = 0; i < 300; i++) {
            f.input(row(rnd, START + 10L * i, 30, 600_000));
        }
        TelemetrySample sample = FitHarness.telemetry("default", "w0", START);
        f.input(sample);
        assertThat(counts(f)).as("clean rows and a first sample: nothing refused").containsExactly(0, 0, 0, 0, 0, 0);

        f.input(FitHarness.telemetry("default", "w0", START)); // the same interval again: the priors refuse it whole
        assertThat(f.function().rejectedInputCount()).isEqualTo(1);
        assertThat(counts(f)).as("a sample refused whole is counted once, not again for its link")
            .containsExactly(0, 0, 0, 0, 0, 0);
        TelemetrySample zeroLink = FitHarness.telemetry("default", "w0", START + 1_000);
        zeroLink.linkIntervalMs = new long[] {0}; // the priors take it; its link has no rate
        f.input(zeroLink);
        assertThat(f.function().rejectedInputCount()).isEqualTo(1);
        f.input(row(rnd, START + 3_000, 8 * 24 * 3600.0, 600_000)); // idle 8 days: past the λ fit's 7
        f.input(row(rnd, START + 3_010, 30, 1.7e15)); // decode time 1.7e15 µs: the regression does not see it
        JoinedRow oneTokenHint = row(rnd, START + 3_020, 30, 2e8); // 1.6e6 µs per predicted token: past τ₀'s 1 s
        f.input(oneTokenHint);
        assertThat(counts(f)).containsExactly(1, 1, 1, 1, 0, 0);
        JoinedRow olderSchema = row(rnd, START + 3_030, 8 * 24 * 3600.0, 600_000); // its λ observation: refused
        olderSchema.regressors.kvOverflowTokens = CostRegressors.UNKNOWN; // RoutingDecision v1: no queued prefill
        f.input(olderSchema);
        assertThat(counts(f)).as("left out of the regression, still offered to the λ fit").containsExactly(1, 2, 1, 1, 1, 0);
        JoinedRow cutOff = row(rnd, START + 3_035, 30, 600_000);
        cutOff.regressors.pEffTokens = CostRegressors.UNKNOWN; // the decision cut a congested tier off
        f.input(cutOff);
        assertThat(counts(f)).as("left out of the regression under its own count").containsExactly(1, 2, 1, 1, 1, 1);
        assertThat(f.function().rejectedInputCount()).as("not a refused row").isEqualTo(1);
        JoinedRow impossible = row(rnd, START + 3_040, 30, 600_000);
        impossible.regressors.kvOverflowTokens = CostRegressors.UNKNOWN;
        impossible.realisedUs = 0; // no first token takes no time: refused as the regression would refuse it
        f.input(impossible);
        assertThat(f.function().rejectedInputCount()).isEqualTo(2);
        assertThat(counts(f)).as("refused whole: not counted as left out").containsExactly(1, 2, 1, 1, 1, 1);

        f.h.setProcessingTime(TICK);
        List<ParameterSnapshot> out = f.h.extractOutputValues();
        assertThat(out).hasSize(1);
        assertThat(out.get(0).getAlphaP().getSamples()).as("the three rows still feed the regression").isEqualTo(303);
        OperatorSubtaskState state = f.h.snapshot(1, TICK);
        f.h.close();

        FitHarness restored = FitHarness.restore(state, FitHarness.settings().build());
        restored.h.setProcessingTime(TICK);
        restored.input(row(rnd, START + 4_000, 30, 600_000)); // rebuilds the estimators from the replay buffers
        restored.h.setProcessingTime(2 * TICK);
        assertThat(restored.h.extractOutputValues().get(0).getAlphaP().getSamples()).isEqualTo(304);
        assertThat(counts(restored)).as("the replayed rows are not counted again").containsExactly(0, 0, 0, 0, 0, 0);
        restored.h.close();
    }
}
