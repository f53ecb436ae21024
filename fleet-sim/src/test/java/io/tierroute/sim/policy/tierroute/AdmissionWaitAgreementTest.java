package io.tierroute.sim.policy.tierroute;

import io.tierroute.fitter.kvwait.AdmissionWait;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.scheduling.CostModel;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The admission wait {@code W} is written twice: the selector prices it ({@code CostModel.admissionWait}) and the
 * fitter fits τ₀, α and k on it ({@code AdmissionWait.micros}); selector-runtime may not depend on the fitter. This
 * module sees both, so it pins them together: a fit of k on one formula applied through the other would be wrong.
 */
class AdmissionWaitAgreementTest {

    @Test
    void theSelectorPricesTheWaitTheFitterFits() {
        SplittableRandom rnd = new SplittableRandom(7);
        for (int i = 0; i < 10_000; i++) {
            double tau0 = rnd.nextDouble() * 50_000;
            double alpha = rnd.nextDouble() * 0.1;
            double missing = rnd.nextInt(4) == 0 ? 0 : rnd.nextDouble() * 400_000;
            long kvUsed = rnd.nextInt(5) == 0 ? 0 : rnd.nextLong(1, 500_000);
            long decodeTokens = rnd.nextLong(0, 20_000);
            int inFlight = rnd.nextInt(0, 64);
            CostParameters p = CostParameters.builder().decodeStepUs(tau0).decodeStepKvUs(alpha).build();
            double selector = CostModel.admissionWait(p, missing, kvUsed, decodeTokens, inFlight);
            double fitter = AdmissionWait.micros(missing, kvUsed, decodeTokens, inFlight, tau0, alpha);
            assertThat(selector).isCloseTo(fitter, within(1e-9 * Math.max(1, fitter)));
        }
    }
}
