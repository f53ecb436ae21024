package io.tierroute.sim.policy.oracle;

import io.tierroute.sim.engine.EngineConfig;
import io.tierroute.sim.engine.Simulation;
import io.tierroute.sim.engine.StepTimeModel;
import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.workload.RequestFactory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The oracle's choice on the real engine: it prices what the request does to the others, not only its own TTFT. */
class OraclePolicyTest {

    /** Routes by a fixed map; the request {@code "r"} goes where the oracle says, its predictions recorded. */
    private static class Scripted implements RoutingPolicy {
        final Map<String, Integer> fixed;
        final OraclePricing pricing;
        final OraclePolicy.Prediction[] predictions = new OraclePolicy.Prediction[2];
        int choice = -1;

        Scripted(Map<String, Integer> fixed) { this(fixed, OraclePricing.FLEET); }

        Scripted(Map<String, Integer> fixed, OraclePricing pricing) { this.fixed = fixed; this.pricing = pricing; }

        @Override public String name() { return "scripted"; }
        @Override public String version() { return "test"; }

        @Override
        public int route(SimRequest r, FleetView v, long now) {
            if (!r.id().equals("r")) return fixed.get(r.id());
            OraclePolicy oracle = new OraclePolicy(v, pricing, 1);
            for (int w = 0; w < 2; w++) predictions[w] = oracle.predict(v.oracle(), w, r);
            choice = oracle.route(r, v, now);
            return choice;
        }
    }

    private static long[] ids(int n, long base) {
        long[] a = new long[n];
        for (int i = 0; i < n; i++) a[i] = base + i;
        return a;
    }

    /** Eight long decoders on worker 0; a short prefill queued on worker 1 at r's arrival; r routed by the oracle. */
    private static Scripted stallScenario(OraclePricing pricing) {
        EngineConfig cfg = EngineConfig.builder().workers(2).blockSize(16).build();
        RequestFactory f = new RequestFactory(cfg.model(), 16);
        List<SimRequest> rs = new ArrayList<>();
        Map<String, Integer> fixed = new java.util.HashMap<>();
        for (int i = 0; i < 8; i++) { // worker 0: eight long decoders
            rs.add(f.request("d" + i, i, 160, ids(10, 1000L * (i + 1)), 4096, 2000, null));
            fixed.put("d" + i, 0);
        }
        // worker 1: a short prefill queued at r's arrival (same instant, routed first)
        rs.add(f.request("q", 1_000_000, 2000, ids(125, 90_000), 16, 1, null));
        fixed.put("q", 1);
        rs.add(f.request("r", 1_000_000, 8000, ids(500, 500_000), 16, 10, null));
        Scripted p = new Scripted(fixed, pricing);
        new Simulation(cfg, rs).run(p, null);
        return p;
    }

    @Test
    void aPrefillThatWouldStallManyDecodersGoesBehindAShortQueueInstead() {
        Scripted p = stallScenario(OraclePricing.FLEET);
        OraclePolicy.Prediction busy = p.predictions[0];
        OraclePolicy.Prediction queued = p.predictions[1];
        // r's own first token comes sooner beside the decoders (one 8000-token step) than behind q ...
        assertThat(busy.ttftMicros()).isLessThan(queued.ttftMicros());
        // ... but that step lengthens each of the eight decoders' next token by r's whole prefill
        assertThat(busy.addedJctMicros()).isGreaterThan(8 * StepTimeModel.prefillMillis(8000) * 1000 * 0.9);
        // behind q, r only shares q's step: q's first token is later by r's 6192-token chunk
        double qDelay = (StepTimeModel.prefillMillis(8192) - StepTimeModel.prefillMillis(2000)) * 1000;
        assertThat(queued.addedTtftMicros()).isCloseTo(qDelay, org.assertj.core.data.Offset.offset(5.0));
        assertThat(p.choice).isEqualTo(1);
    }

    /**
     * 4,096 tokens of HBM per worker: on worker 0 a decoder grows to 3,100 tokens, and r (1,200 + 1,400) with it
     * does not fit by the end: the engine preempts (the forecast says so, and the engine does it); worker 1 has a
     * short prefill queued.
     */
    private static final EngineConfig PREEMPT_CFG =
            EngineConfig.builder().workers(2).blockSize(16).hbmCapacityTokens(4096).cpuCapacityTokens(0).build();

    private static List<SimRequest> preemptionScenario() {
        RequestFactory f = new RequestFactory(PREEMPT_CFG.model(), 16);
        return List.of(f.request("d", 0, 1600, ids(100, 1000), 2048, 1500, null),
                f.request("q", 1_000_000, 3000, ids(187, 90_000), 16, 1, null),
                f.request("r", 1_000_000, 1200, ids(75, 500_000), 2048, 1400, null));
    }

    @Test
    void aPlacementThatMakesTheEnginePreemptIsAvoidedWhileAnotherDoesNot() {
        EngineConfig cfg = PREEMPT_CFG;
        List<SimRequest> rs = preemptionScenario();
        Scripted p = new Scripted(Map.of("d", 0, "q", 1));
        new Simulation(cfg, rs).run(p, null);
        assertThat(p.predictions[0].addedPreemptions()).isPositive();
        assertThat(p.predictions[1].addedPreemptions()).isZero();
        assertThat(p.predictions[0].ttftMicros()).isLessThan(p.predictions[1].ttftMicros()); // r would start sooner on 0
        assertThat(p.choice).isEqualTo(1);

        Scripted forced = new Scripted(Map.of("d", 0, "q", 1)) {
            @Override public int route(SimRequest r, FleetView v, long now) { super.route(r, v, now); return r.id().equals("r") ? 0 : fixed.get(r.id()); }
        };
        long preemptions = new Simulation(cfg, rs).run(forced, null).completions().stream()
                .mapToInt(io.tierroute.sim.policy.Completion::preemptions).sum();
        assertThat(preemptions).isEqualTo(forced.predictions[0].addedPreemptions());
    }

    @Test
    void theTtftReferenceTakesTheSoonerFirstTokenWhateverItCostsTheDecoders() {
        // oracle-ttft prices r's TTFT and the first tokens it delays; the eight decoders have theirs already
        Scripted p = stallScenario(OraclePricing.FLEET_TTFT);
        assertThat(p.predictions[0].addedTtftMicros()).isZero();
        assertThat(p.predictions[0].ttftMicros()).isLessThan(p.predictions[1].ttftMicros() + p.predictions[1].addedTtftMicros());
        assertThat(p.choice).isEqualTo(0);
    }

    @Test
    void theTtftReferenceTakesAPlacementThatPreemptsWhenItsFirstTokenIsSooner() {
        Scripted p = new Scripted(Map.of("d", 0, "q", 1), OraclePricing.FLEET_TTFT);
        new Simulation(PREEMPT_CFG, preemptionScenario()).run(p, null);
        assertThat(p.predictions[0].addedPreemptions()).isPositive();
        assertThat(p.choice).isEqualTo(0);
    }
}
