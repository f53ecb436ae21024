package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.PrefixMatch;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.sequences.PrefixMarks;
import io.tierroute.selector.sequences.RequestEvent;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static io.tierroute.selector.scheduling.HeldPrompts.prompt;
import static io.tierroute.selector.scheduling.HeldPrompts.storeInHbm;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code C_step} is charged where r's prefix picks no worker among the candidates: a worker that cannot take r
 * (draining, unhealthy, its KV cache too small) holding r's prefix does not turn it off for the ones that can.
 */
class CandidateHitSpreadTest {

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);

    /** The harm of each of w0 and w1 for a 1,024-token prompt, w2 draining and holding that prompt or not. */
    private double[] harmsWith(boolean drainedWorkerHoldsPrefix) {
        Selector s = HeldPrompts.selector(3, clock::get, b -> b.spreadWithin(0));
        // Decoders to charge: three on w0, two on w1.
        int k = 0;
        for (int w = 0; w < 2; w++) {
            for (int i = 0; i < 3 - w; i++) {
                String id = "d" + k++;
                s.admitReplicaRequest(new ReplicaAdmission(id, w, 100, 100, 100, null, PrefixMarks.NONE, null,
                        List.of()), clock.get());
                s.onRequestEvent(new RequestEvent(id, RequestEvent.Type.FIRST_TOKEN, 1));
            }
        }
        int[] tokens = prompt(5, 1024);
        if (drainedWorkerHoldsPrefix) {
            storeInHbm(s, 2, tokens);
        }
        s.setDraining(2, true);
        RouteDecision d = s.preview(new RouteRequest("q", null, null, null, tokens, null, null, null, 100, 10, null,
                true));
        double[] harms = new double[2];
        for (RouteDecision.Candidate c : d.candidates()) {
            if (!c.worker().equals("w2")) {
                harms[c.worker().equals("w0") ? 0 : 1] = c.cost().harmUs();
            }
        }
        return harms;
    }

    @Test
    void aDrainingHolderOfThePrefixLeavesTheCandidatesStepPriceAsItIs() {
        double[] without = harmsWith(false);
        double[] with = harmsWith(true);
        assertThat(without[0]).as("C_step charged: 3 decoders on w0 against 2 on w1").isGreaterThan(without[1]);
        assertThat(with).containsExactly(without);
    }

    @Test
    void theSpreadCountsOnlyTheWorkersNotExcluded() {
        PrefixMatch m = new PrefixMatch(3);
        m.reset(64);
        m.set(2, Tier.COUNT - 1, 64); // cumulative: held up to the slowest tier
        assertThat(CostModel.hitSpreadBlocks(m)).isEqualTo(64);
        assertThat(CostModel.hitSpreadBlocks(m, new String[] {null, null, "draining"})).isZero();
        assertThat(CostModel.hitSpreadBlocks(m, new String[] {"unhealthy", "draining", "draining"})).as("none left")
                .isZero();
    }
}
