package io.tierroute.sim.policy.tierroute;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tierroute.fitter.decay.DecayFit;
import io.tierroute.fitter.decay.DecayObservation;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.sim.engine.EngineConfig;
import io.tierroute.sim.engine.Simulation;
import io.tierroute.sim.policy.PolicyRegistry;
import io.tierroute.sim.policy.PolicySetup;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.workload.RequestFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The warm-up fits λ as the streaming job does: on every step with a previous one, hit or miss by whether the previous
 * worker still held the context, wherever the step went; a fit at a bound keeps DESIGN's default.
 */
class WarmUpLambdaFitTest {

    @Test
    void lambdaIsTheMaximumLikelihoodOfTheContextsSurvival() {
        double lambda = 1 / 100.0;
        SplittableRandom rnd = new SplittableRandom(3);
        List<DecayObservation> obs = new ArrayList<>();
        for (int i = 0; i < 4000; i++) {
            double idle = rnd.nextDouble() * 400;
            boolean held = rnd.nextDouble() < Math.exp(-lambda * idle);
            obs.add(DecayObservation.held(idle, held ? 900 : 100, 1000, i));
        }
        DecayFit fit = TierrouteFitting.fitDecay(obs);
        assertThat(fit.lambda().value()).isCloseTo(lambda, within(0.1 * lambda));
        assertThat(TierrouteFitting.pickLambda(fit, 1 / 120.0)).isEqualTo(fit.lambda().value());

        assertThat(TierrouteFitting.fitDecay(obs.subList(0, TierrouteFitting.MIN_COMPLETIONS - 1)))
            .as("too few steps to fit on").isNull();
        List<DecayObservation> allHeld = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            allHeld.add(DecayObservation.held(5 + i, 1000, 1000, i));
        }
        DecayFit never = TierrouteFitting.fitDecay(allHeld);
        assertThat(never.atLowerBound()).isTrue();
        assertThat(TierrouteFitting.pickLambda(never, 1 / 120.0)).as("no context seen to go: the default")
            .isEqualTo(1 / 120.0);
        assertThat(TierrouteFitting.pickLambda(null, 1 / 120.0)).isEqualTo(1 / 120.0);
    }

    /**
     * Two-step workflows on workers whose HBM holds a fraction of the contexts and no CPU tier: some second steps find
     * their context evicted, so the fitted policy's λ comes from the warm-up, not the default.
     */
    @Test
    void theFittedPolicysLambdaComesFromItsWarmUp() {
        EngineConfig cfg = EngineConfig.builder().workers(2).blockSize(16).hbmCapacityTokens(24_000)
            .cpuCapacityTokens(0).build();
        RequestFactory f = new RequestFactory(cfg.model(), 16);
        List<SimRequest> rs = new ArrayList<>();
        int workflows = 120;
        for (int w = 0; w < workflows; w++) {
            long[] ids = new long[96];
            for (int b = 0; b < ids.length; b++) {
                ids[b] = w * 1000L + b;
            }
            long start = w * 100_000L;
            rs.add(f.request("s1-" + w, start, 1024, java.util.Arrays.copyOf(ids, 64), 32, 16,
                new SimRequest.Agent("wf-" + w, 0, List.of(), null)));
            rs.add(f.request("s2-" + w, start + 2_000_000L + (w % 8) * 1_000_000L, 1536, ids, 32, 16,
                new SimRequest.Agent("wf-" + w, 1, List.of(), null)));
        }
        rs.sort(java.util.Comparator.comparingLong(SimRequest::arrivalMicros));
        Simulation sim = new Simulation(cfg, rs);
        PolicySetup setup = new PolicySetup(sim.fleetView(), 7, p -> new Simulation(cfg, rs).run(p, null).completions());
        TierroutePolicy fitted = (TierroutePolicy) new PolicyRegistry().create(TierroutePolicy.FITTED_NAME, setup);
        ParameterSet ps = fitted.selector().parameters().current();
        assertThat(ps.source()).contains("λ=");
        assertThat(ps.cost().lambda()).as(ps.source()).isNotEqualTo(CostParameters.DEFAULTS.lambda()).isPositive();
    }
}
