package io.tierroute.sim.policy.tierroute;

import io.tierroute.fitter.Estimate;
import io.tierroute.fitter.QualityKind;
import io.tierroute.fitter.kvwait.KvWaitFit;
import io.tierroute.fitter.regression.Coefficient;
import io.tierroute.fitter.regression.LatencyFit;
import io.tierroute.fitter.snapshot.FitResults;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.policy.peers.TestFleet;
import org.junit.jupiter.api.Test;

import java.util.EnumMap;
import java.util.Map;
import java.util.OptionalDouble;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** A warm-up's fit on production's path: assembled into a snapshot, gated, converted to the selector's parameters. */
class WarmUpGateTest {

    private static final TestFleet FLEET = TestFleet.of(4);
    private static final long ROWS = 3_000;

    /** A regression fit with every coefficient at {@code values} and a relative standard error of 10 %. */
    private static Map<Coefficient, Estimate> precise(Map<Coefficient, Double> values) {
        Map<Coefficient, Estimate> c = new EnumMap<>(Coefficient.class);
        for (Coefficient k : Coefficient.values()) {
            double v = values.getOrDefault(k, 1.0);
            c.put(k, estimate(v, 0.1 * v));
        }
        return c;
    }

    private static Estimate estimate(double value, double stdError) {
        return new Estimate(value, OptionalDouble.of(stdError), ROWS, 0.8, QualityKind.R2, 0, 1_000);
    }

    private static FitResults fits(Map<Coefficient, Estimate> coefficients, double qSlack) {
        Estimate q = new Estimate(qSlack, OptionalDouble.empty(), ROWS, 0.8, QualityKind.R2, 0, 1_000);
        LatencyFit fit = new LatencyFit(coefficients, q, 0, 0, 0.8, ROWS, ROWS, 0.1, 0, new double[0]);
        return new FitResults(fit, Map.of(), Map.of(), null, null, KvWaitFit.NONE);
    }

    private static final Map<Coefficient, Double> FITTED = Map.of(Coefficient.ALPHA_P, 21.0, Coefficient.ALPHA_P2, 1.5e-4,
            Coefficient.ALPHA_D, 30.0, Coefficient.ALPHA_D2, 6e-5, Coefficient.ALPHA_T, 1.3, Coefficient.ALPHA_HO, 2_000.0,
            Coefficient.ALPHA_WF, 5_000.0, Coefficient.ALPHA_WF2, 100.0);

    @Test
    void aPreciseFitIsAppliedValueForValue() {
        WarmUpGate gate = new WarmUpGate(FLEET);
        ParameterSet p = gate.apply(fits(precise(FITTED), 4), ParameterSet.defaults(FLEET.workers()), "fit 1");

        CostParameters c = p.cost();
        assertThat(c.alphaP()).isEqualTo(21.0);
        assertThat(c.alphaD()).isEqualTo(30.0);
        assertThat(c.alphaHo()).isEqualTo(2_000.0);
        assertThat(c.qSlack()).isEqualTo(4.0);
        assertThat(c.alphaWf2()).isEqualTo(100.0);
        assertThat(p.source()).startsWith("fit 1, through the gate: alphaP=21");
        // The warm-up fits no BW_t: the snapshot's carried default must not override each worker's configured link.
        for (Tier t : Tier.values()) {
            assertThat(p.bandwidthOverride(t.ordinal())).as("override of %s", t).isNaN();
        }
    }

    @Test
    void anImpreciseCoefficientKeepsTheValueInForce() {
        Map<Coefficient, Estimate> c = precise(FITTED);
        c.put(Coefficient.ALPHA_HO, estimate(2_000.0, 3_000.0)); // relative error 1.5 > the gate's 0.5
        WarmUpGate gate = new WarmUpGate(FLEET);
        ParameterSet p = gate.apply(fits(c, 4), ParameterSet.defaults(FLEET.workers()), "fit 1");

        assertThat(p.cost().alphaHo()).as("the default stays").isEqualTo(CostParameters.DEFAULTS.alphaHo());
        assertThat(p.cost().alphaP()).as("the rest applies").isEqualTo(21.0);
        assertThat(p.source()).contains("held: alphaHo kept at the default 100");
    }

    @Test
    void anImpreciseCoefficientTheDataSetApartFromTheValueInForceApplies() {
        Map<Coefficient, Estimate> c = precise(FITTED);
        c.put(Coefficient.ALPHA_D, estimate(0.4, 18.0)); // relative error 45, but the default 50 is 2.76 SE out
        WarmUpGate gate = new WarmUpGate(FLEET);
        ParameterSet p = gate.apply(fits(c, 4), ParameterSet.defaults(FLEET.workers()), "fit 1");

        assertThat(p.cost().alphaD()).isEqualTo(0.4);
        assertThat(p.source()).contains("alphaD applied although fitted 0.4 µs/token has standard error 18");
    }

    @Test
    void aFirstFitTheGateRejectsLeavesTheDefaults() {
        WarmUpGate gate = new WarmUpGate(FLEET);
        Map<Coefficient, Estimate> c = precise(FITTED);
        c.put(Coefficient.ALPHA_P, estimate(2e4, 10.0)); // beyond α_p's physical bound of 10⁴ µs/token
        ParameterSet defaults = ParameterSet.defaults(FLEET.workers());
        ParameterSet p = gate.apply(fits(c, 4), defaults, "fit 1");

        assertThat(p.cost()).isEqualTo(defaults.cost());
        assertThat(p.source()).contains("rejected by the gate: alphaP");
        assertThat(gate.active()).isNull();
    }

    @Test
    void aFitTheGateRejectsLeavesTheParametersInForce() {
        WarmUpGate gate = new WarmUpGate(FLEET);
        ParameterSet first = gate.apply(fits(precise(FITTED), 4), ParameterSet.defaults(FLEET.workers()), "fit 1");

        Map<Coefficient, Double> jumped = new EnumMap<>(FITTED);
        jumped.put(Coefficient.ALPHA_P, 210.0); // 10× in one round on 3,000 rows: no overwhelming evidence
        ParameterSet second = gate.apply(fits(precise(jumped), 4), first, "fit 2");

        assertThat(second.cost()).isEqualTo(first.cost());
        assertThat(second.source()).startsWith(first.source())
                .contains("the next warm-up's fit (fit 2) was rejected by the gate: alphaP jumps 10×");
        assertThat(gate.active().getVersion()).as("the accepted snapshot stays in force").isEqualTo(1L);
    }

    @Test
    void aSecondRoundWithinTheJumpLimitReplacesTheFirst() {
        WarmUpGate gate = new WarmUpGate(FLEET);
        ParameterSet first = gate.apply(fits(precise(FITTED), 4), ParameterSet.defaults(FLEET.workers()), "fit 1");

        Map<Coefficient, Double> moved = new EnumMap<>(FITTED);
        moved.put(Coefficient.ALPHA_P, 42.0);
        ParameterSet second = gate.apply(fits(precise(moved), 5), first, "fit 2");

        assertThat(second.cost().alphaP()).isCloseTo(42.0, within(1e-12));
        assertThat(second.cost().qSlack()).isEqualTo(5.0);
        assertThat(gate.active().getVersion()).isEqualTo(2L);
        assertThat(gate.active().getParentVersion()).isEqualTo(1L);
    }

    /** α_d2 left out by the regression (0 ± ∞ on its rows): α_d carries its share, on both warm-up paths. */
    @Test
    void aQuadraticTheFitLeftOutIsPricedAtZeroGatedOrNot() {
        Map<Coefficient, Estimate> c = precise(FITTED);
        c.put(Coefficient.ALPHA_D2, estimate(0, Double.POSITIVE_INFINITY));
        FitResults f = fits(c, 4);

        ParameterSet gated = new WarmUpGate(FLEET).apply(f, ParameterSet.defaults(FLEET.workers()), "fit 1");
        assertThat(gated.cost().alphaD()).isEqualTo(30.0);
        assertThat(gated.cost().alphaD2()).as("not DESIGN's 0.001 beside it").isZero();

        double dflt = CostParameters.DEFAULTS.alphaD2();
        assertThat(TierrouteFitting.pickQuadratic(f.latency(), Coefficient.ALPHA_D2, dflt)).isZero();
        // with α_d unfitted too, both keep their defaults, a pair that belongs together
        c.put(Coefficient.ALPHA_D, estimate(0, Double.POSITIVE_INFINITY));
        assertThat(TierrouteFitting.pickQuadratic(fits(c, 4).latency(), Coefficient.ALPHA_D2, dflt)).isEqualTo(dflt);
    }
}
