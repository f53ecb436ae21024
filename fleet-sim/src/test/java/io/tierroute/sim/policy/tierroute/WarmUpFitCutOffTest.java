package io.tierroute.sim.policy.tierroute;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.scheduling.CostBreakdown;
import io.tierroute.sim.policy.Completion;
import io.tierroute.sim.policy.SimRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The warm-up fit leaves out a decision that cut a congested tier off, as the streaming job does: the engine loaded the
 * prefix held there, so its p_eff is not what the engine computed.
 */
class WarmUpFitCutOffTest {

    private static CostBreakdown decision(long pEff, int cutOffTier) {
        return new CostBreakdown(0, 0, 0, 0, 0, 0, 0, 0, 0, pEff, pEff * (double) pEff / 2, 0, 0, 0, new long[Tier.COUNT],
                new double[Tier.COUNT], cutOffTier, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    private static Completion completion(String id, long finishMicros, long ttftMicros) {
        SimRequest r = new SimRequest(id, 0, 15, new long[0], new long[0], 16, 64, 10, null);
        return new Completion(r, 0, 0, 0, ttftMicros, 1000, ttftMicros, 10, new int[Tier.COUNT], 0, 0, finishMicros, 0);
    }

    @Test
    void aDecisionThatCutATierOffIsNoRowOfTheFit() {
        SplittableRandom rnd = new SplittableRandom(5);
        Map<String, CostBreakdown> decisions = new HashMap<>();
        List<Completion> log = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            long pEff = 100 + rnd.nextInt(4000);
            boolean cut = i % 4 == 0;
            decisions.put("r" + i, decision(pEff, cut ? Tier.CPU.ordinal() : -1));
            log.add(completion("r" + i, 1_000L * i, 2_000 + 10 * pEff));
        }
        TierrouteFitting.Round round = TierrouteFitting.fitRound(decisions, log, List.of());
        assertThat(round.completions()).as("150 rows of 200: the 50 cut-off decisions left out").isEqualTo(150);
    }
}
