package io.tierroute.fitter.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.fitter.kvwait.KvWaitFit;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotStatus;
import org.junit.jupiter.api.Test;

/**
 * The gate on the admission wait's τ₀, α and k: applied together or not at all; a k near 0 with a small absolute error
 * is a finding, not noise; a jump holds the three instead of rejecting the snapshot (so α_p and the rest still update).
 */
class AdmissionWaitGateTest {
    final SnapshotAssembler assembler = new SnapshotAssembler("params-job", () -> 1_700_000_999_000L);
    final ValidationGate gate = new ValidationGate(GateConfig.DEFAULTS);

    /** A fit of τ₀ ± its SE, α ± its SE and k ± its SE on {@code rows} decode rows and {@code waitRows} waiting ones. */
    static KvWaitFit fit(double tau0, double tau0Se, double alpha, double alphaSe, double k, double kSe, int rows,
                         int waitRows) {
        return new KvWaitFit(tau0, tau0Se, alpha, alphaSe, k, kSe, rows, 0.1, waitRows, k,
                1_700_000_000_000L, 1_700_000_100_000L, 0);
    }

    GateResult validate(ParameterSnapshot active, KvWaitFit wait) {
        FitResults fits = SnapshotFixtures.good(10_000).withKvWait(wait);
        ParameterSnapshot c = assembler.assemble("default", active == null ? 0 : active.getVersion(), active, fits);
        return gate.validate(c, active);
    }

    @Test
    void aPreciseFitIsAppliedWhole() {
        GateResult r = validate(null, fit(6_000, 50, 0.02, 0.001, 0.4, 0.02, 5_000, 800));
        assertThat(r.status()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(r.snapshot().getDecodeStepUs().getValue()).isEqualTo(6_000.0);
        assertThat(r.snapshot().getDecodeStepKvUs().getValue()).isEqualTo(0.02);
        assertThat(r.snapshot().getKvWaitScale().getValue()).isEqualTo(0.4);
        assertThat(r.held()).isEmpty();
    }

    @Test
    void aKNearZeroWithASmallErrorSaysThereIsNoWaitForHbm() {
        // llmd-blog 3 fits k = 0.002–0.025 with an SE of a few thousandths: that is "no wait", not an unknown k
        GateResult r = validate(null, fit(6_000, 50, 0.02, 0.001, 0.003, 0.007, 5_000, 400));
        assertThat(r.status()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(r.snapshot().getKvWaitScale().getValue()).isEqualTo(0.003);
        assertThat(r.held()).isEmpty();
    }

    @Test
    void oneImpreciseValueHoldsAllThree() {
        // α's SE is 67 % of it: held; τ₀ (the intercept of that slope) and k (fitted on that W) are held with it
        GateResult r = validate(null, fit(22_890, 100, 0.003, 0.002, 0.298, 0.01, 733, 300));
        assertThat(r.status()).isEqualTo(SnapshotStatus.ACCEPTED);
        ParameterSnapshot s = r.snapshot();
        assertThat(s.getDecodeStepUs().getValue()).isEqualTo(0.0);
        assertThat(s.getDecodeStepKvUs().getValue()).isEqualTo(0.0);
        assertThat(s.getKvWaitScale().getValue()).isEqualTo(1.0);
        assertThat(s.getDecodeStepUs().getSamples()).isZero();
        assertThat(r.held()).anySatisfy(h -> assertThat(h).startsWith("held: decodeStepKvUs"));
        assertThat(r.held()).anySatisfy(h -> assertThat(h).contains("decodeStepUs kept at 0")
                .contains("applied together"));
        assertThat(r.held()).anySatisfy(h -> assertThat(h).contains("kvWaitScale kept at 1"));
        // the other parameters still take their fitted values
        assertThat(s.getAlphaP().getSamples()).isPositive();
    }

    @Test
    void aValueAppliedAgainstTheDataIsNotReportedAppliedWhenTheRestHoldsIt() {
        // k = 0.003 ± 0.2 puts the default 1 five standard errors out: applied on its own, with a note; but α is
        // imprecise and within two standard errors of its default 0, so all three are held, and no note may say
        // k was applied
        GateResult alone = validate(null, fit(6_000, 50, 0.02, 0.001, 0.003, 0.2, 5_000, 300));
        assertThat(alone.snapshot().getKvWaitScale().getValue()).isEqualTo(0.003);
        assertThat(alone.notes()).singleElement().asString().startsWith("kvWaitScale applied although");

        GateResult r = validate(null, fit(22_890, 100, 0.003, 0.002, 0.003, 0.2, 733, 300));
        assertThat(r.status()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(r.snapshot().getKvWaitScale().getValue()).isEqualTo(1.0);
        assertThat(r.held()).anySatisfy(h -> assertThat(h).contains("kvWaitScale kept at 1"));
        assertThat(r.notes()).noneMatch(n -> n.startsWith("kvWaitScale"));
    }

    @Test
    void eachHeldValueIsReportedOnceAndAnUnfittedOneNotAtAll() {
        // α imprecise (held by its own check), τ₀ precise (held with it), k unfitted on 10 rows with W > 0 (carried)
        GateResult r = validate(null, fit(22_890, 100, 0.003, 0.002, 0.298, 0.01, 733, 10));
        assertThat(r.status()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(r.held()).filteredOn(h -> h.contains("decodeStepKvUs")).singleElement()
                .satisfies(h -> assertThat(h).startsWith("held: decodeStepKvUs").doesNotContain("applied together"));
        assertThat(r.held()).filteredOn(h -> h.contains("decodeStepUs")).singleElement()
                .satisfies(h -> assertThat(h).contains("applied together"));
        assertThat(r.held()).noneMatch(h -> h.contains("kvWaitScale"));
        assertThat(r.snapshot().getKvWaitScale().getValue()).isEqualTo(1.0);
        assertThat(r.snapshot().getKvWaitScale().getSamples()).isZero();
    }

    @Test
    void fewWaitingRowsHoldTheThreeButRejectNothing() {
        // k fitted on 40 rows with W > 0 (the gate's minimum is 200): the wait term waits for more evidence
        GateResult r = validate(null, fit(6_000, 50, 0.02, 0.001, 0.6, 0.05, 5_000, 40));
        assertThat(r.status()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(r.snapshot().getKvWaitScale().getValue()).isEqualTo(1.0);
        assertThat(r.snapshot().getDecodeStepUs().getValue()).isEqualTo(0.0);
        assertThat(r.rejections()).isEmpty();
    }

    /**
     * Too few rows with W &gt; 0 to fit k (at low load): a k fitted before is carried, and a τ₀ and α fitted anew beside
     * it would be scaled by a k calibrated on another W, so the three keep the values in force. A k never fitted (the
     * default 1) calibrates nothing: the new τ₀ and α apply.
     */
    @Test
    void aFittedKCarriedForWantOfRowsHoldsANewStepWithIt() {
        ParameterSnapshot active = validate(null, fit(20_000, 50, 0.05, 0.001, 0.2, 0.02, 5_000, 800)).snapshot();
        KvWaitFit noK = fit(6_000, 50, 0.06, 0.001, 1.0, Double.NaN, 5_000, 10);
        assertThat(noK.scaleEstimate()).as("too few rows with W > 0 for k").isNull();
        GateResult r = validate(active, noK);
        assertThat(r.status()).isEqualTo(SnapshotStatus.ACCEPTED);
        ParameterSnapshot s = r.snapshot();
        assertThat(s.getDecodeStepUs().getValue()).isEqualTo(20_000.0);
        assertThat(s.getDecodeStepKvUs().getValue()).isEqualTo(0.05);
        assertThat(s.getKvWaitScale().getValue()).isEqualTo(0.2);
        assertThat(r.held()).anySatisfy(h -> assertThat(h).startsWith("held: kvWaitScale kept at 0.2")
                .contains("not fitted in this version"));
        assertThat(r.held()).anySatisfy(h -> assertThat(h).startsWith("held: decodeStepUs kept at 20000"));
        assertThat(s.getAlphaP().getSamples()).as("the rest still updates").isPositive();

        GateResult first = validate(null, noK);
        assertThat(first.snapshot().getDecodeStepUs().getValue()).as("k never fitted: the step applies").isEqualTo(6_000.0);
        assertThat(first.snapshot().getKvWaitScale().getValue()).isEqualTo(1.0);
        assertThat(first.held()).isEmpty();
    }

    /** α at its bound from {@link io.tierroute.fitter.kvwait.KvWaitFitter} (error +∞) is held, and τ₀ and k with it. */
    @Test
    void anAlphaAtItsBoundIsHeldWithTheRest() {
        ParameterSnapshot active = validate(null, fit(20_000, 50, 0.05, 0.001, 0.2, 0.02, 5_000, 800)).snapshot();
        GateResult r = validate(active, fit(3_000, 50, 10, Double.POSITIVE_INFINITY, 0.3, 0.02, 5_000, 800));
        assertThat(r.status()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(r.snapshot().getDecodeStepKvUs().getValue()).isEqualTo(0.05);
        assertThat(r.snapshot().getDecodeStepUs().getValue()).isEqualTo(20_000.0);
        assertThat(r.snapshot().getKvWaitScale().getValue()).isEqualTo(0.2);
        assertThat(r.held()).anySatisfy(h -> assertThat(h).startsWith("held: decodeStepKvUs kept at the active value"));
    }

    @Test
    void aJumpHoldsTheActiveWaitAndTheSnapshotStillUpdatesTheRest() {
        ParameterSnapshot active = validate(null, fit(12_000, 50, 0.02, 0.001, 0.5, 0.02, 5_000, 800)).snapshot();
        // τ₀ 12 ms → 2 ms on 19,000 rows at 1 % error: a jump (6×) without overwhelming evidence
        GateResult r = validate(active, fit(2_000, 20, 0.02, 0.001, 0.5, 0.02, 19_000, 800));
        assertThat(r.status()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(r.snapshot().getDecodeStepUs().getValue()).isEqualTo(12_000.0);
        assertThat(r.snapshot().getDecodeStepKvUs().getValue()).isEqualTo(0.02);
        assertThat(r.snapshot().getKvWaitScale().getValue()).isEqualTo(0.5);
        assertThat(r.held()).anySatisfy(h -> assertThat(h).contains("decodeStepUs jumps"));
        assertThat(r.snapshot().getVersion()).isGreaterThan(active.getVersion());
        // k moving with the load is no jump at all: 0.5 → 0.1 is within 4× of the 0.25 floor
        GateResult k = validate(active, fit(12_000, 50, 0.02, 0.001, 0.1, 0.01, 5_000, 800));
        assertThat(k.status()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(k.snapshot().getKvWaitScale().getValue()).isEqualTo(0.1);
    }

    @Test
    void aValueHeldWithTheRestKeepsItsRejection() {
        // α imprecise: the three are held; k = 1.5 lies outside [0, 1], a defect holding it must not hide
        GateResult r = validate(null, fit(22_890, 100, 0.003, 0.002, 1.5, 0.01, 733, 300));
        assertThat(r.status()).isEqualTo(SnapshotStatus.REJECTED);
        assertThat(r.rejections()).singleElement().asString().startsWith("kvWaitScale = 1.5");
    }
}
