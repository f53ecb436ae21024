package io.tierroute.jobs.fit;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.fitter.snapshot.FitResults;
import io.tierroute.jobs.join.JoinedRow;
import org.junit.jupiter.api.Test;

/**
 * A joined row the latency regression refuses as impossible reaches neither the admission wait's sample nor the λ fit:
 * a queue wait of 1.7e15 µs (a missing timestamp taken as the epoch) is no truer for them, and one such row drove k to 0.
 */
class ScopeEstimatorsTest {

    /** A row that carries the admission wait's fields and a λ observation (a return hit after 30 s). */
    private static JoinedRow row(double queueWaitUs) {
        JoinedRow r = new JoinedRow();
        r.scope = "s";
        r.worker = "w1";
        r.eventTimeMs = 1_700_000_000_000L;
        r.regressors.pEffTokens = 2_000;
        r.regressors.inflightDecodeTokens = 3_000;
        r.returnIdleSeconds = 30;
        r.cacheHit = true;
        r.outputTokens = 200;
        r.admission.kvUsedTokens = 40_000;
        r.admission.predictedOutputTokens = 128;
        r.admission.missingKvTokens = 0;
        r.admission.inFlight = 3;
        r.admission.predictedPrefillUs = 4_000;
        r.admission.predictedQueueUs = 500;
        r.decodeUs = 600_000;
        r.queueWaitUs = queueWaitUs;
        r.prefillUs = 4_300;
        r.realisedUs = queueWaitUs + r.prefillUs;
        return r;
    }

    @Test
    void aRowTheRegressionRefusesAsImpossibleReachesNoOtherEstimator() {
        ScopeEstimators est = new ScopeEstimators("s", 10_000, 16, 1_000);
        assertThat(est.add(row(1.7e15))).as("refused, so the caller counts it").isFalse();
        FitResults fits = est.fits(1, 1, null);
        assertThat(fits.kvWait()).as("no admission-wait row").isNull();
        assertThat(fits.decay()).as("no λ observation").isNull();

        ScopeEstimators clean = new ScopeEstimators("s", 10_000, 16, 1_000);
        assertThat(clean.add(row(700))).isTrue();
        FitResults cleanFits = clean.fits(1, 1, null);
        assertThat(cleanFits.kvWait()).as("the same row with a real queue wait is a row").isNotNull();
        assertThat(cleanFits.decay().lambda().samples()).isEqualTo(1);
    }
}
