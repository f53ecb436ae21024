package io.tierroute.jobs.fit;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.fitter.regression.Coefficient;
import io.tierroute.fitter.snapshot.FitResults;
import io.tierroute.jobs.ingest.TelemetrySample;
import org.junit.jupiter.api.Test;

/**
 * Before the regression has its rows, the snapshot's α_p comes from the engines' telemetry and α_d does not: the
 * prior's α_d is a decode time per generated token (here 1,000 µs step / 4 running = 250 µs/token), not the
 * first-token wait C_decode prices (fitter/README.md §2, "Limits").
 */
class TelemetryPriorFitTest {

    @Test
    void onlyAlphaPIsTakenFromTheTelemetryPriors() {
        ScopeEstimators scope = new ScopeEstimators("default", 20_000, 256, 1_000);
        long t = 1_700_000_000_000L;
        for (int i = 0; i < 250; i++) {
            assertThat(scope.add(FitHarness.telemetry("default", "w" + (i % 4), t += 1000))).isTrue();
        }
        FitResults fits = scope.fits(200, 200, null);
        assertThat(fits.latency()).as("a prior fit before any joined row").isNotNull();
        assertThat(fits.latency().get(Coefficient.ALPHA_P).value()).as("160,000 µs busy / 4,000 tokens")
                .isCloseTo(40.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(fits.latency().get(Coefficient.ALPHA_D)).as("the prior's α_d is not served").isNull();
    }

    /**
     * prefillTokens that count requests (3 a second) beside the real busy time: a prior α_p of 53,333 µs/token, past
     * the gate's bound of 10,000, which rejected every snapshot until the regression took over. It is not served.
     */
    @Test
    void aPriorOutsideTheGatesBoundsIsNotServed() {
        ScopeEstimators scope = new ScopeEstimators("default", 20_000, 256, 1_000);
        long t = 1_700_000_000_000L;
        for (int i = 0; i < 250; i++) {
            TelemetrySample s = FitHarness.telemetry("default", "w" + (i % 4), t += 1000);
            s.prefillTokens = 3;
            assertThat(scope.add(s)).isTrue();
        }
        assertThat(scope.fits(200, 200, null).latency()).as("no α_p from the prior, so no latency fit at all").isNull();
    }
}
