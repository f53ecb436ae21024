package io.tierroute.fitter.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QualityKind;
import io.tierroute.schemas.snapshot.SnapshotParameter;
import org.junit.jupiter.api.Test;

/**
 * A quadratic the regression left out (0 ± ∞ on the fit's rows: its linear partner carries it) goes through the gate
 * with that partner, so a non-zero α_d2 in force is not priced beside an α_d fitted without it.
 */
class QuadraticPairGateTest {
    final SnapshotAssembler assembler = new SnapshotAssembler("params-job", () -> 1_700_000_999_000L);
    final ValidationGate gate = new ValidationGate(GateConfig.DEFAULTS);

    static final FittedValue LEFT_OUT =
        SnapshotFixtures.fitted(0, Double.POSITIVE_INFINITY, 10_000, 0.9, QualityKind.R2);

    /** v1 with the fixtures' precise α_d = 50 µs/token and α_d2 = 0.001 µs/token². */
    ParameterSnapshot active() {
        GateResult r = gate.validate(assembler.assemble("default", 0, null, SnapshotFixtures.good(10_000)), null);
        assertThat(r.accepted()).isTrue();
        assertThat(r.snapshot().getAlphaD2().getValue()).isEqualTo(0.001);
        return r.snapshot();
    }

    /** The next candidate: α_d fitted at {@code alphaD} ± {@code alphaDSe}, α_d2 as given. */
    ParameterSnapshot candidate(ParameterSnapshot active, double alphaD, double alphaDSe, FittedValue alphaD2) {
        ParameterSnapshot c = active == null
            ? assembler.assemble("default", 0, null, SnapshotFixtures.good(10_000))
            : assembler.assemble("default", active.getVersion(), active, SnapshotFixtures.good(10_000));
        c = SnapshotFixtures.with(c, SnapshotParameter.ALPHA_D,
            SnapshotFixtures.fitted(alphaD, alphaDSe, 10_000, 0.9, QualityKind.R2));
        return SnapshotFixtures.with(c, SnapshotParameter.ALPHA_D2, alphaD2);
    }

    @Test
    void aLeftOutQuadraticIsAppliedAsZeroWithItsAppliedPartner() {
        ParameterSnapshot active = active();
        GateResult r = gate.validate(candidate(active, 62, 0.5, LEFT_OUT), active);

        assertThat(r.accepted()).as("%s", r.rejections()).isTrue();
        assertThat(r.snapshot().getAlphaD().getValue()).isEqualTo(62.0);
        assertThat(r.snapshot().getAlphaD2().getValue()).as("not the 0.001 in force beside an α_d that carries it")
            .isZero();
        assertThat(r.held()).isEmpty();
        assertThat(r.notes()).containsExactly("alphaD2 = 0 applied with alphaD, in place of 0.001 µs/token²: the fit "
            + "priced its term with alphaD alone (the other regressors reproduce its column, or it never varied)");
    }

    @Test
    void aLeftOutQuadraticKeepsTheValueInForceWhenItsPartnerIsHeld() {
        ParameterSnapshot active = active();
        // α_d 55 ± 40: imprecise, and the 50 in force lies within two standard errors, so held
        GateResult r = gate.validate(candidate(active, 55, 40, LEFT_OUT), active);

        assertThat(r.accepted()).as("%s", r.rejections()).isTrue();
        assertThat(r.snapshot().getAlphaD().getValue()).isEqualTo(50.0);
        assertThat(r.snapshot().getAlphaD2().getValue()).isEqualTo(0.001);
        assertThat(r.snapshot().getAlphaD2().getSamples()).as("carried").isZero();
        assertThat(r.held()).hasSize(2);
        assertThat(r.held()).anySatisfy(h -> assertThat(h).startsWith("held: alphaD kept at the active value 50"));
        // its own check held it already (an infinite error), and says so
        assertThat(r.held()).anySatisfy(h -> assertThat(h).startsWith("held: alphaD2 kept at the active value 0.001"));
        assertThat(r.notes()).isEmpty();
    }

    @Test
    void withoutAnActiveSnapshotALeftOutQuadraticReplacesItsDefault() {
        GateResult r = gate.validate(candidate(null, 62, 0.5, LEFT_OUT), null);

        assertThat(r.accepted()).as("%s", r.rejections()).isTrue();
        assertThat(r.snapshot().getAlphaD2().getValue()).as("DESIGN's 0.001 would count the share twice").isZero();
        assertThat(r.notes()).singleElement().asString().startsWith("alphaD2 = 0 applied with alphaD, in place of 0.001");
    }

    @Test
    void aNonZeroQuadraticWithAnInfiniteErrorIsHeldOnItsOwn() {
        ParameterSnapshot active = active();
        FittedValue unknown = SnapshotFixtures.fitted(0.004, Double.POSITIVE_INFINITY, 10_000, 0.9, QualityKind.R2);
        GateResult r = gate.validate(candidate(active, 62, 0.5, unknown), active);

        assertThat(r.accepted()).isTrue();
        assertThat(r.snapshot().getAlphaD().getValue()).isEqualTo(62.0);
        assertThat(r.snapshot().getAlphaD2().getValue()).isEqualTo(0.001);
        assertThat(r.held()).singleElement().asString().startsWith("held: alphaD2 kept at the active value 0.001");
    }

    @Test
    void aQuadraticFittedAgainAfterBeingLeftOutIsNoJumpFromZero() {
        ParameterSnapshot active = active();
        GateResult leftOut = gate.validate(candidate(active, 62, 0.5, LEFT_OUT), active);
        assertThat(leftOut.snapshot().getAlphaD2().getValue()).isZero();

        // 0.003 is 3,000× α_d2's negligible 1e-6, far beyond maxJumpFactor: a jump measured from the applied 0 would
        // reject the whole snapshot
        FittedValue back = SnapshotFixtures.fitted(0.003, 0.0001, 10_000, 0.9, QualityKind.R2);
        GateResult r = gate.validate(candidate(leftOut.snapshot(), 62, 0.5, back), leftOut.snapshot());

        assertThat(r.rejections()).isEmpty();
        assertThat(r.snapshot().getAlphaD2().getValue()).isEqualTo(0.003);
    }

    @Test
    void aFittedQuadraticKeepsItsOwnVerdictBesideAHeldLinearTerm() {
        ParameterSnapshot active = active();
        GateResult leftOut = gate.validate(candidate(active, 62, 0.5, LEFT_OUT), active);
        // α_d 62 was fitted without α_d2; the next fit has α_d2 back, precise, and an α_d the gate holds at 62. Holding
        // α_d2 at 0 with it was measured and not kept (tierroute-gated, agentic-pcie 1.25, seed 6: p99 2.34× → 0.73×)
        FittedValue back = SnapshotFixtures.fitted(0.003, 0.0001, 10_000, 0.9, QualityKind.R2);
        GateResult r = gate.validate(candidate(leftOut.snapshot(), 60, 40, back), leftOut.snapshot());

        assertThat(r.accepted()).as("%s", r.rejections()).isTrue();
        assertThat(r.snapshot().getAlphaD().getValue()).isEqualTo(62.0);
        assertThat(r.snapshot().getAlphaD2()).isEqualTo(back);
        assertThat(r.held()).singleElement().asString().startsWith("held: alphaD kept at the active value 62");
    }

    @Test
    void eachQuadraticGoesWithItsOwnPartner() {
        ParameterSnapshot active = active();
        // α_d held, α_p applied: the left-out α_p2 takes the fit's 0 with α_p; α_d2, precise, is applied on its own
        // beside the held α_d (the 0.001 in force is no left-out 0, so the α_d in force carries no share of it)
        FittedValue alphaD2 = SnapshotFixtures.fitted(0.0012, 0.00001, 10_000, 0.9, QualityKind.R2);
        ParameterSnapshot c = SnapshotFixtures.with(candidate(active, 55, 40, alphaD2), SnapshotParameter.ALPHA_P2,
            LEFT_OUT);
        GateResult r = gate.validate(c, active);

        assertThat(r.accepted()).as("%s", r.rejections()).isTrue();
        assertThat(r.snapshot().getAlphaP2()).isEqualTo(LEFT_OUT);
        assertThat(r.snapshot().getAlphaD().getValue()).isEqualTo(50.0);
        assertThat(r.snapshot().getAlphaD2()).isEqualTo(alphaD2);
        assertThat(r.held()).singleElement().asString().startsWith("held: alphaD kept at the active value 50");
        assertThat(r.notes()).singleElement().asString().startsWith("alphaP2 = 0 applied with alphaP, in place of "
            + "0.0001 µs/token²");
    }

    @Test
    void aLeftOutQuadraticIsNotReportedAppliedWithARejectedPartner() {
        ParameterSnapshot active = active();
        // α_d 50 → 400 precisely on 10,000 rows: an 8× jump without overwhelming evidence rejects the snapshot
        GateResult r = gate.validate(candidate(active, 400, 1, LEFT_OUT), active);

        assertThat(r.accepted()).isFalse();
        assertThat(r.rejections()).singleElement().asString().startsWith("alphaD jumps 8×");
        assertThat(r.notes()).as("nothing is applied").isEmpty();
        assertThat(r.held()).singleElement().asString().startsWith("held: alphaD2 kept at the active value 0.001");
    }
}
