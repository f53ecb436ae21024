package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.snapshot.SnapshotParameter;
import static io.tierroute.fitter.snapshot.SnapshotFixtures.ALPHAS;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.fitter.bandwidth.LinkKey;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileCoverage;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.QualityKind;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.TierBandwidth;
import io.tierroute.schemas.snapshot.FittedProvenance;
import io.tierroute.schemas.avro.WorkerTierRho;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ValidationGateTest {
    final SnapshotAssembler assembler = new SnapshotAssembler("params-job", () -> 1_700_000_999_000L);
    final ValidationGate gate = new ValidationGate(GateConfig.DEFAULTS);

    /** v1, accepted against nothing. */
    ParameterSnapshot active() {
        GateResult r = gate.validate(assembler.assemble("default", 0, null, SnapshotFixtures.good(10_000)), null);
        assertThat(r.accepted()).isTrue();
        return r.snapshot();
    }

    /** A fresh candidate (v2) against {@link #active()} with the same kind of evidence. */
    ParameterSnapshot candidate(ParameterSnapshot active, FitResults fits) {
        return assembler.assemble("default", active.getVersion(), active, fits);
    }

    static ParameterSnapshot roundTrip(ParameterSnapshot s) {
        byte[] bytes = Codecs.PARAMETER_SNAPSHOT.encode(s);
        ParameterSnapshot back = Codecs.PARAMETER_SNAPSHOT.decode(bytes);
        // Avro's record equals treats NaN != NaN, so compare the text form and the re-encoding
        assertThat(back.toString()).isEqualTo(s.toString());
        assertThat(Codecs.PARAMETER_SNAPSHOT.encode(back)).isEqualTo(bytes);
        if (!back.toString().contains("NaN")) {
            assertThat(back).isEqualTo(s);
        }
        return back;
    }

    @Test
    void acceptsAGoodFirstSnapshotUnchanged() {
        ParameterSnapshot c = assembler.assemble("default", 0, null, SnapshotFixtures.good(10_000));
        ParameterSnapshot copy = ParameterSnapshot.newBuilder(c).build();
        GateResult r = gate.validate(c, null);

        assertThat(r.status()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(r.rejections()).isEmpty();
        assertThat(r.held()).isEmpty();
        assertThat(r.snapshot().getStatus()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(r.snapshot().getRejectReasons()).isEmpty();
        assertThat(ParameterSnapshot.newBuilder(r.snapshot()).setStatus(SnapshotStatus.CANDIDATE).build()).isEqualTo(c);
        assertThat(c).as("input not mutated").isEqualTo(copy);
        // first snapshot: no jump check against the defaults (α_wf2 0 → 4000, BW_t 64 → 50 GB/s)
        assertThat(r.snapshot().getAlphaWf2().getValue()).isEqualTo(4000.0);
        roundTrip(r.snapshot());
    }

    @Test
    void acceptsAGoodSecondSnapshotAgainstTheActiveOne() {
        ParameterSnapshot active = active();
        double[] moved = ALPHAS.clone();
        for (int i = 0; i < moved.length; i++) {
            moved[i] *= (i % 2 == 0 ? 1.5 : 0.7);
        }
        FitResults fits = new FitResults(SnapshotFixtures.latency(moved, 0.02, 8000, 0.8),
            Map.of(new LinkKey("w1", "CPU"), SnapshotFixtures.rho(0.9, 400)), null,
            SnapshotFixtures.decay(1.0 / 90, 0.05, 3000), GateTestSupport.tinyForest(4000));
        ParameterSnapshot c = candidate(active, fits);
        GateResult r = gate.validate(c, active);

        assertThat(r.rejections()).isEmpty();
        assertThat(r.accepted()).isTrue();
        assertThat(r.snapshot().getVersion()).isEqualTo(2);
        assertThat(r.snapshot().getParentVersion()).isEqualTo(1L);
        assertThat(r.snapshot().getAlphaD().getValue()).isEqualTo(75.0);
        assertThat(r.snapshot().getBandwidths()).allSatisfy(tb -> assertThat(tb.getBytesPerSecond().getSamples()).isZero());
        ParameterSnapshot back = roundTrip(r.snapshot());
        assertThat(back.getQuantileModel().getTrainingRows()).isEqualTo(4000);
    }

    static Stream<Arguments> badValues() {
        return Stream.of(
            Arguments.of("alphaP NaN", (UnaryOperator<ParameterSnapshot>) s ->
                SnapshotFixtures.withValue(s, SnapshotParameter.ALPHA_P, Double.NaN), "alphaP = NaN is not a finite number (bounds (0, 10000] µs/token)"),
            Arguments.of("lambda +Inf", (UnaryOperator<ParameterSnapshot>) s ->
                SnapshotFixtures.withValue(s, SnapshotParameter.LAMBDA, Double.POSITIVE_INFINITY), "lambda = Infinity is not a finite number (bounds [0.000001, 1] 1/s)"),
            Arguments.of("alphaD -Inf", (UnaryOperator<ParameterSnapshot>) s ->
                SnapshotFixtures.withValue(s, SnapshotParameter.ALPHA_D, Double.NEGATIVE_INFINITY), "alphaD = -Infinity is not a finite number (bounds [0, 100000] µs/token)"),
            Arguments.of("alphaD negative", (UnaryOperator<ParameterSnapshot>) s ->
                SnapshotFixtures.withValue(s, SnapshotParameter.ALPHA_D, -5), "alphaD = -5 µs/token is negative (bounds [0, 100000] µs/token)"),
            Arguments.of("alphaP too large", (UnaryOperator<ParameterSnapshot>) s ->
                SnapshotFixtures.withValue(s, SnapshotParameter.ALPHA_P, 20_000), "alphaP = 20000 µs/token is outside the physical bounds (0, 10000] µs/token"),
            Arguments.of("alphaP zero", (UnaryOperator<ParameterSnapshot>) s ->
                SnapshotFixtures.with(s, SnapshotParameter.ALPHA_P, SnapshotFixtures.fitted(0, 1e-4, 10_000, 0.9, QualityKind.R2)),
                "alphaP = 0 µs/token is outside the physical bounds (0, 10000] µs/token"),
            Arguments.of("lambda too large", (UnaryOperator<ParameterSnapshot>) s ->
                SnapshotFixtures.with(s, SnapshotParameter.LAMBDA, SnapshotFixtures.fitted(5, 0.1, 5000, 0.1, QualityKind.STD_ERROR)),
                "lambda = 5 1/s is outside the physical bounds [0.000001, 1] 1/s"),
            Arguments.of("bandwidth too large", (UnaryOperator<ParameterSnapshot>) s -> {
                List<TierBandwidth> bws = new ArrayList<>();
                for (TierBandwidth tb : s.getBandwidths()) {
                    bws.add(tb.getTier() != Tier.CPU ? tb : TierBandwidth.newBuilder(tb)
                        .setBytesPerSecond(FittedValue.newBuilder(tb.getBytesPerSecond()).setValue(1e14).build()).build());
                }
                return ParameterSnapshot.newBuilder(s).setBandwidths(bws).build();
            }, "bandwidth[CPU] = 1E+14 bytes/s is outside the physical bounds (1000000, 1E+13] bytes/s"),
            Arguments.of("rho above 1", (UnaryOperator<ParameterSnapshot>) s -> {
                List<WorkerTierRho> rho = new ArrayList<>(s.getRho());
                rho.set(0, WorkerTierRho.newBuilder(rho.get(0))
                    .setRho(FittedValue.newBuilder(rho.get(0).getRho()).setValue(1.5).build()).build());
                return ParameterSnapshot.newBuilder(s).setRho(rho).build();
            }, "rho[w1/CPU] = 1.5 (dimensionless) is outside the physical bounds [0, 1] (dimensionless)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badValues")
    void rejectsNonFiniteNegativeAndOutOfBoundValuesNamingTheParameter(String name,
            UnaryOperator<ParameterSnapshot> corrupt, String expectedReason) {
        for (boolean withActive : new boolean[] {false, true}) {
            ParameterSnapshot active = withActive ? active() : null;
            ParameterSnapshot good = withActive ? candidate(active, SnapshotFixtures.good(10_000))
                : assembler.assemble("default", 0, null, SnapshotFixtures.good(10_000));
            ParameterSnapshot bad = corrupt.apply(good);
            GateResult r = gate.validate(bad, active);

            assertThat(r.status()).as(name).isEqualTo(SnapshotStatus.REJECTED);
            assertThat(r.rejections()).as(name).containsExactly(expectedReason);
            assertThat(r.snapshot().getStatus()).isEqualTo(SnapshotStatus.REJECTED);
            assertThat(r.snapshot().getRejectReasons()).contains(expectedReason);
            // kept for history: the fitted values are recorded as they were
            assertThat(ParameterSnapshot.newBuilder(r.snapshot()).setStatus(SnapshotStatus.CANDIDATE)
                .setRejectReasons(List.of()).build().toString()).isEqualTo(bad.toString());
            roundTrip(r.snapshot());
        }
    }

    @Test
    void rejectsTooFewSamples() {
        ParameterSnapshot c = assembler.assemble("default", 0, null, new FitResults(SnapshotFixtures.latency(50),
            null, null, SnapshotFixtures.decay(1.0 / 120, 0.05, 150), null));
        GateResult r = gate.validate(c, null);

        assertThat(r.status()).isEqualTo(SnapshotStatus.REJECTED);
        assertThat(r.rejections()).contains(
            "alphaP = 1 µs/token fitted on 50 samples < minimum 200",
            "qSlack = 4 requests fitted on 50 samples < minimum 200",
            "lambda = 0.00833333 1/s fitted on 150 samples < minimum 200");
        assertThat(r.rejections()).hasSize(10);
        assertThat(r.snapshot().getRejectReasons()).hasSize(10);
        roundTrip(r.snapshot());
    }

    @Test
    void rejectsLowR2() {
        ParameterSnapshot c = assembler.assemble("default", 0, null,
            new FitResults(SnapshotFixtures.latency(ALPHAS, 0.01, 10_000, 0.12), null, null, null, null));
        GateResult r = gate.validate(c, null);

        assertThat(r.status()).isEqualTo(SnapshotStatus.REJECTED);
        assertThat(r.rejections()).contains("alphaD = 50 µs/token: regression R² 0.12 < minimum 0.3");
        assertThat(r.rejections()).allMatch(s -> s.contains("R² 0.12 < minimum 0.3"));
        assertThat(r.rejections()).hasSize(9); // 8 α's and Q_slack
        // λ is not from the regression and is not named
        assertThat(r.rejections()).noneMatch(s -> s.startsWith("lambda"));
    }

    @Test
    void aJumpFromAValueTheActiveSnapshotOnlyCarriedIsNoJump() {
        // v1 published before anything was fitted: every value is a carried default (samples 0).
        GateResult first = gate.validate(assembler.assemble("default", 0, null, FitResults.empty()), null);
        assertThat(first.accepted()).isTrue();
        ParameterSnapshot defaultsOnly = first.snapshot();
        assertThat(defaultsOnly.getAlphaP().getSamples()).isZero();

        // The first real fit puts α_p 20× above the default: evidence against no evidence is no jump.
        double[] fitted = ALPHAS.clone();
        fitted[0] = 20.0;
        GateResult r = gate.validate(candidate(defaultsOnly, new FitResults(
            SnapshotFixtures.latency(fitted, 0.01, 5_000, 0.9), null, null, null, null)), defaultsOnly);
        assertThat(r.rejections()).isEmpty();
        assertThat(r.accepted()).isTrue();

        // The same move against a fitted active value is still a jump.
        ParameterSnapshot active = active();
        GateResult against = gate.validate(candidate(active, new FitResults(
            SnapshotFixtures.latency(fitted, 0.01, 5_000, 0.9), null, null, null, null)), active);
        assertThat(against.rejections()).singleElement().asString().startsWith("alphaP jumps 20×");
    }

    /**
     * The telemetry prior prices prefill at busy time / tokens, fixed step cost included (STD_ERROR); the regression
     * at the marginal price beside its intercept (R2). On short prompts they differ manyfold: the first regression
     * after the prior is no jump, the next one is measured from it.
     */
    @Test
    void theFirstRegressionAfterTheTelemetryPriorIsNoJump() {
        ParameterSnapshot active = active();
        ParameterSnapshot fromPrior = SnapshotFixtures.with(active, SnapshotParameter.ALPHA_P,
            SnapshotFixtures.fitted(180.0, 0.5, 2_000, 0.5, io.tierroute.schemas.avro.QualityKind.STD_ERROR));
        double[] marginal = ALPHAS.clone();
        marginal[0] = 15.0;
        GateResult r = gate.validate(candidate(fromPrior, new FitResults(
            SnapshotFixtures.latency(marginal, 0.01, 5_000, 0.9), null, null, null, null)), fromPrior);
        assertThat(r.rejections()).isEmpty();
        assertThat(r.snapshot().getAlphaP().getValue()).isEqualTo(15.0);

        double[] again = ALPHAS.clone();
        again[0] = 180.0;
        assertThat(gate.validate(candidate(r.snapshot(), new FitResults(
            SnapshotFixtures.latency(again, 0.01, 5_000, 0.9), null, null, null, null)), r.snapshot()).rejections())
            .as("regression after regression: a jump as before").singleElement().asString()
            .startsWith("alphaP jumps 12×");
    }

    /**
     * A jump refused for want of overwhelming evidence is accepted once it persists while as many new rows came in as
     * overwhelming evidence asks for: one imprecise parameter no longer freezes the scope's other parameters for good.
     */
    @Test
    void aJumpThatPersistsOverEnoughNewRowsIsAccepted() {
        ParameterSnapshot active = active();
        double[] jumped = alphaDTenfold();
        GateResult refused = gate.validate(jumpedAlphaD(active, jumped, 5_000), active, JumpWatch.NONE);
        assertThat(refused.status()).isEqualTo(SnapshotStatus.REJECTED);
        assertThat(refused.refusedJumps()).singleElement().satisfies(j -> {
            assertThat(j.label()).isEqualTo("alphaD");
            assertThat(j.seen()).isEqualTo(new JumpWatch.Seen(50, true, 5_000, QualityKind.R2));
        });
        JumpWatch watch = JumpWatch.NONE.after(refused);

        // fewer new rows than overwhelming evidence asks for: refused again, still as first seen
        GateResult again = gate.validate(jumpedAlphaD(active, jumped, 24_999), active, watch);
        assertThat(again.status()).isEqualTo(SnapshotStatus.REJECTED);
        watch = watch.after(again);
        assertThat(watch.seen().get("alphaD").samples()).as("kept as first seen").isEqualTo(5_000);

        // 20 000 rows after it was first refused, the same jump: confirmed
        GateResult confirmed = gate.validate(jumpedAlphaD(active, jumped, 25_000), active, watch);
        assertThat(confirmed.rejections()).isEmpty();
        assertThat(confirmed.status()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(confirmed.snapshot().getAlphaD().getValue()).isEqualTo(500.0);
        assertThat(confirmed.notes()).singleElement().asString().contains("alphaD jumps 10×", "accepted: confirmed by");
        assertThat(watch.after(confirmed).seen()).as("an accepted jump is no longer watched").isEmpty();

        // the other way is a new jump, not a confirmation
        double[] dropped = ALPHAS.clone();
        dropped[2] = 5;
        GateResult other = gate.validate(jumpedAlphaD(active, dropped, 25_000), active, watch);
        assertThat(other.status()).isEqualTo(SnapshotStatus.REJECTED);
        assertThat(watch.after(other).seen().get("alphaD")).isEqualTo(new JumpWatch.Seen(50, false, 25_000, QualityKind.R2));
        // a rebuilt estimator (a restore) counts again from its new, lower sample count
        JumpWatch rebuilt = watch.after(gate.validate(jumpedAlphaD(active, jumped, 3_000), active, watch));
        assertThat(rebuilt.seen().get("alphaD").samples()).isEqualTo(3_000);
        // and a direct validate watches nothing
        assertThat(gate.validate(jumpedAlphaD(active, jumped, 25_000), active).status()).isEqualTo(SnapshotStatus.REJECTED);
    }

    /**
     * A refused jump stays refused through a publish that held its parameter's imprecise fit: the value in force, now
     * carried (samples 0), is still the jump's baseline, so the jump passes only once confirmed. Before, the carried
     * value was no baseline and the same precise jump passed unconfirmed one publish later.
     */
    @Test
    void aRefusedJumpIsStillRefusedAfterAnImpreciseFitWasHeld() {
        ParameterSnapshot active = active();
        double[] jumped = alphaDTenfold();
        GateResult refused = gate.validate(jumpedAlphaD(active, jumped, 5_000), active, JumpWatch.NONE);
        assertThat(refused.status()).isEqualTo(SnapshotStatus.REJECTED);
        JumpWatch watch = JumpWatch.NONE.after(refused);

        // α_d fitted at 60 ± 100: too imprecise to tell from the 50 in force, held; the rest is applied
        ParameterSnapshot imprecise = SnapshotFixtures.with(candidate(active, SnapshotFixtures.good(10_000)),
            SnapshotParameter.ALPHA_D, SnapshotFixtures.fitted(60.0, 100.0, 10_000, 0.9, QualityKind.R2));
        GateResult held = gate.validate(imprecise, active, watch);
        assertThat(held.status()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(held.held()).singleElement().asString().startsWith("held: alphaD kept at the active value 50");
        ParameterSnapshot carried = held.snapshot();
        assertThat(carried.getAlphaD().getSamples()).isZero();
        watch = watch.after(held);
        assertThat(watch.seen().get("alphaD")).as("still watched as first seen")
            .isEqualTo(new JumpWatch.Seen(50, true, 5_000, QualityKind.R2));

        GateResult again = gate.validate(jumpedAlphaD(carried, jumped, 15_000), carried, watch);
        assertThat(again.status()).as("the carried 50 is the jump's baseline").isEqualTo(SnapshotStatus.REJECTED);
        assertThat(again.rejections()).singleElement().asString().startsWith("alphaD jumps 10× from the active value 50");
        watch = watch.after(again);
        assertThat(watch.seen().get("alphaD").samples()).isEqualTo(5_000);

        GateResult confirmed = gate.validate(jumpedAlphaD(carried, jumped, 25_000), carried, watch);
        assertThat(confirmed.status()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(confirmed.snapshot().getAlphaD().getValue()).isEqualTo(500.0);
        assertThat(confirmed.passedFits()).contains("alphaD");
        assertThat(watch.after(confirmed).seen()).isEmpty();

        // without a refused jump the carried value is no baseline, as before
        assertThat(gate.validate(jumpedAlphaD(carried, jumped, 15_000), carried, JumpWatch.NONE).status())
            .isEqualTo(SnapshotStatus.ACCEPTED);
    }

    /**
     * Two jumps first refused at different times: the one confirmed first stays watched while the other still rejects
     * the snapshot, so both pass together once the second is confirmed too.
     */
    @Test
    void twoJumpsFirstRefusedAtDifferentTimesPassTogether() {
        ParameterSnapshot active = active();
        double[] onlyD = ALPHAS.clone();
        onlyD[2] = 500; // α_d 50 → 500
        double[] both = onlyD.clone();
        both[5] = 1000; // α_ho 100 → 1000
        JumpWatch watch = JumpWatch.NONE.after(gate.validate(jumpedAlphaD(active, onlyD, 5_000), active, JumpWatch.NONE));
        watch = watch.after(gate.validate(jumpedAlphaD(active, both, 15_000), active, watch));
        assertThat(watch.seen()).containsOnlyKeys("alphaD", "alphaHo");

        GateResult dConfirmedHoNot = gate.validate(jumpedAlphaD(active, both, 25_000), active, watch);
        assertThat(dConfirmedHoNot.status()).isEqualTo(SnapshotStatus.REJECTED);
        assertThat(dConfirmedHoNot.confirmedJumps()).containsExactly("alphaD");
        watch = watch.after(dConfirmedHoNot);
        assertThat(watch.seen().get("alphaD").samples()).as("still as first seen").isEqualTo(5_000);

        GateResult bothConfirmed = gate.validate(jumpedAlphaD(active, both, 35_000), active, watch);
        assertThat(bothConfirmed.rejections()).isEmpty();
        assertThat(bothConfirmed.snapshot().getAlphaD().getValue()).isEqualTo(500.0);
        assertThat(bothConfirmed.snapshot().getAlphaHo().getValue()).isEqualTo(1000.0);
        assertThat(watch.after(bothConfirmed).seen()).isEmpty();
    }

    /**
     * A jump refused to one estimator does not hold another back through a carried value: the telemetry prior's α_p
     * refused as a jump from the prior's 1, then held, is still a baseline for the prior's next fit, but not for the
     * regression's first (another price: the marginal one beside its intercept).
     */
    @Test
    void aRefusedJumpOfThePriorDoesNotHoldTheRegressionBack() {
        ParameterSnapshot base = active();
        ParameterSnapshot fromPrior = gate.validate(SnapshotFixtures.with(candidate(base, SnapshotFixtures.good(10_000)),
            SnapshotParameter.ALPHA_P, SnapshotFixtures.fitted(1.0, 0.01, 600, 0.01, QualityKind.STD_ERROR)), base)
            .snapshot();
        GateResult refused = gate.validate(SnapshotFixtures.with(candidate(fromPrior, SnapshotFixtures.good(10_000)),
            SnapshotParameter.ALPHA_P, SnapshotFixtures.fitted(20.0, 0.2, 700, 0.2, QualityKind.STD_ERROR)), fromPrior);
        assertThat(refused.rejections()).singleElement().asString().startsWith("alphaP jumps 20×");
        JumpWatch watch = JumpWatch.NONE.after(refused);
        assertThat(watch.seen().get("alphaP").kind()).isEqualTo(QualityKind.STD_ERROR);

        GateResult held = gate.validate(SnapshotFixtures.with(candidate(fromPrior, SnapshotFixtures.good(10_000)),
            SnapshotParameter.ALPHA_P, SnapshotFixtures.fitted(1.5, 10.0, 800, 10.0, QualityKind.STD_ERROR)), fromPrior,
            watch);
        assertThat(held.accepted()).isTrue();
        ParameterSnapshot carried = held.snapshot();
        assertThat(carried.getAlphaP().getSamples()).isZero();
        watch = watch.after(held);

        GateResult prior = gate.validate(SnapshotFixtures.with(candidate(carried, SnapshotFixtures.good(10_000)),
            SnapshotParameter.ALPHA_P, SnapshotFixtures.fitted(20.0, 0.2, 900, 0.2, QualityKind.STD_ERROR)), carried,
            watch);
        assertThat(prior.rejections()).as("the prior's next fit: still the jump").singleElement().asString()
            .startsWith("alphaP jumps 20×");
        GateResult regression = gate.validate(SnapshotFixtures.with(candidate(carried, SnapshotFixtures.good(12_000)),
            SnapshotParameter.ALPHA_P, SnapshotFixtures.fitted(20.0, 0.2, 12_000, 0.9, QualityKind.R2)), carried, watch);
        assertThat(regression.rejections()).as("the regression's first fit").isEmpty();
        assertThat(regression.snapshot().getAlphaP().getValue()).isEqualTo(20.0);
    }

    /** The fixture's α's with α_d 50 → 500. */
    private static double[] alphaDTenfold() {
        double[] jumped = ALPHAS.clone();
        jumped[2] = 500;
        return jumped;
    }

    /** A candidate whose α's are {@code alphas} fitted on {@code rows} rows with a relative error of 0.1. */
    private ParameterSnapshot jumpedAlphaD(ParameterSnapshot active, double[] alphas, long rows) {
        return candidate(active, new FitResults(SnapshotFixtures.latency(alphas, 0.1, rows, 0.9), null, null, null, null));
    }

    @Test
    void tenfoldJumpIsRejectedWithNormalEvidenceButAcceptedWithOverwhelmingEvidence() {
        ParameterSnapshot active = active();
        double[] jumped = ALPHAS.clone();
        jumped[2] = 500; // α_d 50 → 500

        ParameterSnapshot normal = candidate(active, new FitResults(
            SnapshotFixtures.latency(jumped, 0.01, 5_000, 0.9), null, null, null, null));
        GateResult r = gate.validate(normal, active);
        assertThat(r.status()).isEqualTo(SnapshotStatus.REJECTED);
        assertThat(r.rejections()).containsExactly("alphaD jumps 10× from the active value 50 to 500 µs/token "
            + "(max factor 4) without overwhelming evidence (needs samples ≥ 20000 and relative error ≤ 0.02, "
            + "or the same jump after 20000 more samples; has 5000 samples, relative error 0.01)");

        // many samples but imprecise: still not overwhelming
        ParameterSnapshot imprecise = candidate(active, new FitResults(
            SnapshotFixtures.latency(jumped, 0.1, 50_000, 0.9), null, null, null, null));
        assertThat(gate.validate(imprecise, active).status()).isEqualTo(SnapshotStatus.REJECTED);

        // downward 10× as well
        double[] dropped = ALPHAS.clone();
        dropped[2] = 5;
        assertThat(gate.validate(candidate(active, new FitResults(
            SnapshotFixtures.latency(dropped, 0.01, 5_000, 0.9), null, null, null, null)), active).rejections())
            .singleElement().asString().startsWith("alphaD jumps 10× from the active value 50 to 5 µs/token");

        ParameterSnapshot overwhelming = candidate(active, new FitResults(
            SnapshotFixtures.latency(jumped, 0.005, 50_000, 0.9), null, null, null, null));
        GateResult ok = gate.validate(overwhelming, active);
        assertThat(ok.rejections()).isEmpty();
        assertThat(ok.status()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(ok.snapshot().getAlphaD().getValue()).isEqualTo(500.0);
        assertThat(ok.notes()).singleElement().asString().contains("alphaD jumps 10×", "overwhelming evidence");
        roundTrip(ok.snapshot());
    }

    @Test
    void highStandardErrorCoefficientIsHeldAtTheActiveValue() {
        ParameterSnapshot active = active();
        ParameterSnapshot c = candidate(active, SnapshotFixtures.good(10_000));
        // α_t fitted at 3 with SE 6 (collinear with another regressor), α_wf2 never excited: 0 ± ∞
        c = SnapshotFixtures.with(c, SnapshotParameter.ALPHA_T, SnapshotFixtures.fitted(3, 6.0, 10_000, 0.9, QualityKind.R2));
        c = SnapshotFixtures.with(c, SnapshotParameter.ALPHA_WF2,
            SnapshotFixtures.fitted(0, Double.POSITIVE_INFINITY, 10_000, 0.9, QualityKind.R2));
        GateResult r = gate.validate(c, active);

        assertThat(r.rejections()).isEmpty();
        assertThat(r.status()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(r.held()).containsExactly(
            "held: alphaT kept at the active value 1 (dimensionless); fitted 3 (dimensionless) has standard error 6 "
                + "(dimensionless) (relative 2 > max 0.5)",
            "held: alphaWf2 kept at the active value 4000 µs; the fit's rows do not determine it "
                + "(e.g. its feature was 0 on every row)");
        FittedValue alphaT = r.snapshot().getAlphaT();
        assertThat(alphaT.getValue()).isEqualTo(1.0);
        assertThat(alphaT.getSamples()).isZero();
        assertThat(alphaT.getQualityKind()).isEqualTo(QualityKind.NONE);
        assertThat(alphaT.getWindowStartMs()).as("the active fit's window, carried").isEqualTo(SnapshotFixtures.T0);
        assertThat(alphaT.getWindowEndMs()).isEqualTo(SnapshotFixtures.T1);
        assertThat(r.snapshot().getAlphaWf2().getValue()).isEqualTo(4000.0);
        assertThat(r.snapshot().getAlphaD()).isEqualTo(c.getAlphaD());
        assertThat(r.snapshot().getRejectReasons()).isEqualTo(r.held());
        roundTrip(r.snapshot());

        // the next candidate, inheriting the held values, is accepted against this one
        ParameterSnapshot next = assembler.assemble("default", 2, r.snapshot(), FitResults.empty());
        assertThat(gate.validate(next, r.snapshot()).accepted()).isTrue();
    }

    /**
     * SE = +∞ is no measurement (the rows carry no information about the value): the held line says so in words
     * instead of quoting the placeholder value and an infinite error; the hold itself is the same as before.
     */
    @Test
    void aValueTheRowsDoNotDetermineIsHeldWithAReasonInWords() {
        ParameterSnapshot active = active();
        ParameterSnapshot c = candidate(active, SnapshotFixtures.good(10_000));
        c = SnapshotFixtures.with(c, SnapshotParameter.ALPHA_D,
            SnapshotFixtures.fitted(0, Double.POSITIVE_INFINITY, 10_000, 0.9, QualityKind.R2));
        c = SnapshotFixtures.with(c, SnapshotParameter.LAMBDA,
            SnapshotFixtures.fitted(0.02, Double.POSITIVE_INFINITY, 5_000, Double.MAX_VALUE, QualityKind.STD_ERROR));
        GateResult r = gate.validate(c, active);

        assertThat(r.status()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(r.rejections()).isEmpty();
        assertThat(r.notes()).isEmpty();
        assertThat(r.held()).containsExactly(
            "held: alphaD kept at the active value 50 µs/token; the fit's rows do not determine it "
                + "(e.g. its feature was 0 on every row)",
            "held: lambda kept at the active value 0.00833333 1/s; the fit's rows do not determine it");
        assertThat(r.snapshot().getRejectReasons()).isEqualTo(r.held())
            .noneMatch(h -> h.contains("Infinity") || h.contains("standard error"));
        assertThat(r.snapshot().getAlphaD()).isEqualTo(FittedValues.carried(active.getAlphaD()));
        assertThat(r.snapshot().getLambda()).isEqualTo(FittedValues.carried(active.getLambda()));
        roundTrip(r.snapshot());
    }

    @Test
    void heldWithoutActiveFallsBackToTheDefault() {
        ParameterSnapshot c = assembler.assemble("default", 0, null, SnapshotFixtures.good(10_000));
        c = SnapshotFixtures.with(c, SnapshotParameter.ALPHA_HO, SnapshotFixtures.fitted(300, 400.0, 10_000, 0.9, QualityKind.R2));
        GateResult r = gate.validate(c, null);
        assertThat(r.accepted()).isTrue();
        assertThat(r.snapshot().getAlphaHo().getValue()).isEqualTo(100.0);
        assertThat(FittedProvenance.neverFitted(r.snapshot().getAlphaHo())).as("a default: window [0, 0)").isTrue();
        assertThat(r.held()).singleElement().asString().startsWith("held: alphaHo kept at the default 100 µs/request²");
    }

    /**
     * A coefficient near 0 is imprecise in relative terms however much data there is (0.4 ± 18): held for that alone,
     * the default 50 stayed in force though the data put it 2.7 standard errors out (fleet-sim's tierroute-gated).
     * Held only while the value in force lies within holdWithinStdErrors (2) of the fit.
     */
    @Test
    void anImpreciseFitIsHeldOnlyWhileTheDataCannotRuleOutTheValueInForce() {
        ParameterSnapshot first = assembler.assemble("default", 0, null, SnapshotFixtures.good(10_000));
        FittedValue nearZero = SnapshotFixtures.fitted(0.4, 18.0, 10_000, 0.9, QualityKind.R2);
        GateResult applied = gate.validate(SnapshotFixtures.with(first, SnapshotParameter.ALPHA_D, nearZero), null);
        assertThat(applied.accepted()).isTrue();
        assertThat(applied.held()).isEmpty();
        assertThat(applied.snapshot().getAlphaD()).isEqualTo(nearZero);
        assertThat(applied.notes()).containsExactly("alphaD applied although fitted 0.4 µs/token has standard error "
            + "18 µs/token (relative 45 > max 0.5): the value in force lies 2.75556 error figures from it "
            + "(more than 2)");

        // 0.4 ± 30: the default 50 is 1.65 standard errors out, within what the data allow: held
        FittedValue wider = SnapshotFixtures.fitted(0.4, 30.0, 10_000, 0.9, QualityKind.R2);
        GateResult held = gate.validate(SnapshotFixtures.with(first, SnapshotParameter.ALPHA_D, wider), null);
        assertThat(held.snapshot().getAlphaD().getValue()).isEqualTo(50.0);
        assertThat(held.held()).singleElement().asString().startsWith("held: alphaD kept at the default 50 µs/token");

        // +∞ holds every imprecise value (the rule before holdWithinStdErrors)
        ValidationGate always =
            new ValidationGate(GateConfig.DEFAULTS.withHoldWithinStdErrors(Double.POSITIVE_INFINITY));
        GateResult old = always.validate(SnapshotFixtures.with(first, SnapshotParameter.ALPHA_D, nearZero), null);
        assertThat(old.snapshot().getAlphaD().getValue()).isEqualTo(50.0);
        assertThat(old.held()).hasSize(1);
    }

    /** An imprecise fit that contradicts the value in force still passes the other checks, else it is held. */
    @Test
    void anImpreciseFitThatWouldBeRejectedIsHeldNotRejected() {
        ParameterSnapshot active = active(); // α_d fitted at 50 in v1
        // 0.4 ± 18 is 2.76 standard errors from 50, but a 125× jump without overwhelming evidence
        ParameterSnapshot c = SnapshotFixtures.with(candidate(active, SnapshotFixtures.good(10_000)),
            SnapshotParameter.ALPHA_D, SnapshotFixtures.fitted(0.4, 18.0, 10_000, 0.9, QualityKind.R2));
        GateResult r = gate.validate(c, active);
        assertThat(r.accepted()).isTrue();
        assertThat(r.rejections()).isEmpty();
        assertThat(r.snapshot().getAlphaD().getValue()).isEqualTo(50.0);
        assertThat(r.snapshot().getAlphaD().getSamples()).as("carried").isZero();
        assertThat(r.held()).singleElement().asString()
            .startsWith("held: alphaD kept at the active value 50 µs/token; fitted 0.4 µs/token has standard error 18")
            .contains("though the value in force lies 2.75556 error figures from it (more than 2) the fit fails: "
                + "alphaD jumps 125× from the active value 50 to 0.4 µs/token");
    }

    /**
     * A fit applied because the data contradicted the value before it is imprecise: no baseline for the next fit's
     * jump check, or a precise α_d of 3 (7.5× the 0.4 applied) would reject every snapshot until the evidence became
     * overwhelming.
     */
    @Test
    void anImpreciseFitAppliedIsNoJumpBaseline() {
        ParameterSnapshot first = SnapshotFixtures.with(
            assembler.assemble("default", 0, null, SnapshotFixtures.good(10_000)), SnapshotParameter.ALPHA_D, SnapshotFixtures.fitted(0.4, 18.0, 10_000, 0.9, QualityKind.R2));
        GateResult v1 = gate.validate(first, null);
        assertThat(v1.snapshot().getAlphaD().getValue()).isEqualTo(0.4);

        ParameterSnapshot next = SnapshotFixtures.with(candidate(v1.snapshot(), SnapshotFixtures.good(10_000)),
            SnapshotParameter.ALPHA_D, SnapshotFixtures.fitted(3.0, 0.1, 10_000, 0.9, QualityKind.R2));
        GateResult v2 = gate.validate(next, v1.snapshot());
        assertThat(v2.rejections()).isEmpty();
        assertThat(v2.snapshot().getAlphaD().getValue()).isEqualTo(3.0);

        // from a precise 0.4 the same fit is a jump, as before
        ParameterSnapshot precise = SnapshotFixtures.with(
            assembler.assemble("default", 0, null, SnapshotFixtures.good(10_000)), SnapshotParameter.ALPHA_D, SnapshotFixtures.fitted(0.4, 0.01, 10_000, 0.9, QualityKind.R2));
        ParameterSnapshot active = gate.validate(precise, null).snapshot();
        ParameterSnapshot jump = SnapshotFixtures.with(candidate(active, SnapshotFixtures.good(10_000)),
            SnapshotParameter.ALPHA_D, SnapshotFixtures.fitted(3.0, 0.1, 10_000, 0.9, QualityKind.R2));
        assertThat(gate.validate(jump, active).rejections()).singleElement().asString()
            .startsWith("alphaD jumps 7.5× from the active value 0.4 to 3 µs/token");
    }

    /** A BW_t never fitted is a placeholder the selector does not apply: an imprecise peak has nothing to contradict. */
    @Test
    void anImpreciseBandwidthIsHeldAgainstAPlaceholder() {
        ParameterSnapshot active = active();
        FittedValue placeholder = FittedValues.carried(64e9);
        ParameterSnapshot withPlaceholder = withBandwidth(active, Tier.CPU, placeholder);
        assertThat(FittedProvenance.neverFitted(SnapshotAssemblerTest.bandwidth(withPlaceholder, Tier.CPU))).isTrue();
        // 20 GB/s ± 15: 2.9 error figures below the placeholder, but the placeholder is no value in force
        ParameterSnapshot c = withBandwidth(candidate(withPlaceholder, SnapshotFixtures.good(10_000)), Tier.CPU,
            SnapshotFixtures.fitted(20e9, null, 1000, 15e9, QualityKind.STD_ERROR));
        GateResult r = gate.validate(c, withPlaceholder);
        assertThat(r.accepted()).isTrue();
        assertThat(r.held()).singleElement().asString().startsWith("held: bandwidth[CPU] kept at the active value");
        assertThat(r.notes()).isEmpty();
    }

    @Test
    void holdWithinStdErrorsMustBePositive() {
        for (double bad : new double[] {0.0, -1.0, Double.NaN}) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> GateConfig.DEFAULTS.withHoldWithinStdErrors(bad))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("holdWithinStdErrors");
        }
    }

    @Test
    void rhoWithTooFewSamplesIsHeldOrDropped() {
        ParameterSnapshot active = active();
        FitResults fits = new FitResults(SnapshotFixtures.latency(10_000),
            Map.of(new LinkKey("w1", "CPU"), SnapshotFixtures.rho(0.95, 2), new LinkKey("w9", "NVME"), SnapshotFixtures.rho(0.5, 1),
                new LinkKey("w2", "CPU"), SnapshotFixtures.rho(0.2, 50)),
            null, null, null);
        GateResult r = gate.validate(candidate(active, fits), active);

        assertThat(r.accepted()).isTrue();
        assertThat(r.held()).hasSize(2);
        assertThat(r.snapshot().getRho()).extracting(w -> w.getWorker() + "/" + w.getTier() + "=" + w.getRho().getValue())
            .containsExactly("w1/CPU=0.3", "w2/CPU=0.2");
        FittedValue held = r.snapshot().getRho().get(0).getRho();
        assertThat(held.getSamples()).isZero();
        assertThat(held.getWindowEndMs()).as("the active fit's window, carried").isEqualTo(SnapshotFixtures.T1);
    }

    /**
     * A fleet starting (or worker names that change per boot): 16,000 links with one sample each. One held line per link
     * put 48,000 lines in a record past what Kafka takes; ρ's lines are listed up to ten of a kind and counted beyond.
     */
    @Test
    void manyHeldRhoEntriesAreCountedNotEachListed() {
        ParameterSnapshot active = active();
        Map<LinkKey, io.tierroute.fitter.Estimate> rho = new java.util.HashMap<>();
        for (int i = 0; i < 16_000; i++) {
            rho.put(new LinkKey("worker-" + i, "CPU"), SnapshotFixtures.rho(0.4, 1));
        }
        GateResult r = gate.validate(candidate(active, new FitResults(SnapshotFixtures.latency(10_000), rho, null, null,
            null)), active);
        assertThat(r.accepted()).isTrue();
        assertThat(r.held()).hasSize(RhoCheck.LISTED + 1);
        assertThat(r.held().get(0)).startsWith("held: rho[worker-");
        assertThat(r.held().get(RhoCheck.LISTED)).isEqualTo("held: ρ entries held as well: 15990 more, not listed");
        assertThat(r.snapshot().getRejectReasons()).hasSize(RhoCheck.LISTED + 1);
        assertThat(r.snapshot().getRho()).as("no active entry: dropped").isEmpty();
    }

    @Test
    void unfittedValueThatDiffersFromTheActiveOneIsRejected() {
        ParameterSnapshot active = active();
        ParameterSnapshot c = SnapshotFixtures.with(candidate(active, SnapshotFixtures.good(10_000)),
            SnapshotParameter.ALPHA_WF, FittedValues.carried(7000));
        GateResult r = gate.validate(c, active);
        assertThat(r.rejections()).containsExactly(
            "alphaWf = 7000 µs is unfitted (samples 0) but differs from the active value 5000 µs");
    }

    @Test
    void versionsAreMonotonicAndHeaderIsChecked() {
        ParameterSnapshot active = active();
        ParameterSnapshot c = candidate(active, SnapshotFixtures.good(10_000));

        GateResult stale = gate.validate(ParameterSnapshot.newBuilder(c).setVersion(1).build(), active);
        assertThat(stale.rejections()).containsExactly(
            "version 1 is not greater than the active version 1 (versions are strictly increasing)");
        GateResult wrongParent = gate.validate(ParameterSnapshot.newBuilder(c).setParentVersion(0L).build(), active);
        assertThat(wrongParent.rejections()).singleElement().asString().startsWith("parentVersion 0 is not the active version 1");
        GateResult notCandidate = gate.validate(ParameterSnapshot.newBuilder(c).setStatus(SnapshotStatus.ACCEPTED).build(), active);
        assertThat(notCandidate.rejections()).containsExactly("status is ACCEPTED, only a CANDIDATE can be validated");

        // a run of candidates, one rejected in the middle: versions strictly increase, parents follow the active one
        ParameterSnapshot current = active;
        long latest = active.getVersion();
        List<Long> versions = new ArrayList<>(List.of(latest));
        for (int i = 0; i < 5; i++) {
            FitResults fits = i == 2
                ? new FitResults(SnapshotFixtures.latency(ALPHAS, 0.01, 10_000, 0.05), null, null, null, null)
                : SnapshotFixtures.good(10_000 + i);
            ParameterSnapshot cand = assembler.assemble("default", latest, current, fits);
            GateResult r = gate.validate(cand, current);
            assertThat(r.accepted()).as("step %d", i).isEqualTo(i != 2);
            assertThat(cand.getParentVersion()).isEqualTo(current.getVersion());
            latest = cand.getVersion();
            versions.add(latest);
            if (r.accepted()) {
                current = r.snapshot();
            }
        }
        assertThat(versions).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
        assertThat(current.getVersion()).isEqualTo(6);
        assertThat(current.getParentVersion()).isEqualTo(5L);
    }

    @Test
    void firstSnapshotRejectsAParentVersion() {
        ParameterSnapshot c = ParameterSnapshot.newBuilder(
            assembler.assemble("default", 0, null, SnapshotFixtures.good(10_000))).setParentVersion(3L).build();
        assertThat(gate.validate(c, null).rejections())
            .containsExactly("parentVersion 3 given but the scope has no active snapshot");
    }

    @Test
    void newQuantileForestNeedsEnoughRowsAndAWellFormedLayout() {
        ParameterSnapshot c = assembler.assemble("default", 0, null, new FitResults(SnapshotFixtures.latency(10_000),
            null, null, null, GateTestSupport.tinyForest(100)));
        // Too few rows is too little evidence, not a defect: the model is held back, the rest goes through.
        GateResult few = gate.validate(c, null);
        assertThat(few.rejections()).isEmpty();
        assertThat(few.accepted()).isTrue();
        assertThat(few.snapshot().getQuantileModel()).as("no active model to keep").isNull();
        assertThat(few.held()).contains(
            "held: quantileModel kept at none (d̂ from hints or max_tokens / 2); trained on 100 rows < minimum 1000");

        GateResult withModel = gate.validate(assembler.assemble("default", 0, null, new FitResults(
            SnapshotFixtures.latency(10_000), null, null, null, GateTestSupport.tinyForest(5000))), null);
        assertThat(withModel.accepted()).isTrue();
        ParameterSnapshot activeWithModel = withModel.snapshot();
        GateResult keeps = gate.validate(assembler.assemble("default", 1, activeWithModel, new FitResults(
            SnapshotFixtures.latency(10_000), null, null, null, GateTestSupport.tinyForest(100))), activeWithModel);
        assertThat(keeps.accepted()).isTrue();
        assertThat(keeps.snapshot().getQuantileModel()).as("the active model stays")
            .isEqualTo(activeWithModel.getQuantileModel());

        ParameterSnapshot broken = ParameterSnapshot.newBuilder(c).setQuantileModel(
            io.tierroute.schemas.avro.QuantileForestModel.newBuilder(GateTestSupport.tinyForest(5000))
                .setNodeThreshold(List.of(Double.NaN, 0.0, 0.0)).build()).build();
        assertThat(gate.validate(broken, null).rejections()).containsExactly("quantileModel: nodeThreshold[0] = NaN is not finite");

        // Models the selector's evaluator refuses to load must not pass either (found in review).
        QuantileForestModel good = GateTestSupport.tinyForest(5000);
        assertThat(gate.validate(ParameterSnapshot.newBuilder(c).setQuantileModel(good).build(), null).rejections()).isEmpty();
        java.util.Map<String, QuantileForestModel> bad = new java.util.LinkedHashMap<>();
        bad.put("nodeThreshold[0] = Infinity is not finite", QuantileForestModel.newBuilder(good)
                .setNodeThreshold(List.of(Double.POSITIVE_INFINITY, 0.0, 0.0)).build());
        bad.put("nodeLeft[0] = 10000000 is not a node index (0..2)", QuantileForestModel.newBuilder(good)
                .setNodeLeft(List.of(10_000_000, -1, -1)).build());
        bad.put("nodeSplitFeature[0] = 7 is not a feature index (< " + good.getFeatureNames().size() + ")",
                QuantileForestModel.newBuilder(good).setNodeSplitFeature(
                        java.util.stream.Stream.concat(java.util.stream.Stream.of(7),
                                good.getNodeSplitFeature().stream().skip(1)).toList()).build());
        bad.put("maxSamplesPerLeaf = 0 < 1", QuantileForestModel.newBuilder(good).setMaxSamplesPerLeaf(0).build());
        List<Float> reversed = new java.util.ArrayList<>(good.getLeafSamples());
        java.util.Collections.reverse(reversed);
        bad.put("sample is not sorted", QuantileForestModel.newBuilder(good).setLeafSamples(reversed).build());
        // what only the evaluator refused before gate and evaluator shared ForestStructure: a cycle, an unknown feature
        bad.put("node 0 is reached twice (tree 0): not a tree", QuantileForestModel.newBuilder(good)
                .setNodeLeft(List.of(0, -1, -1)).build());
        bad.put("featureNames[0] = 'colour' is not a known feature", QuantileForestModel.newBuilder(good)
                .setFeatureNames(java.util.stream.Stream.concat(java.util.stream.Stream.of("colour"),
                        good.getFeatureNames().stream().skip(1)).toList()).build());
        bad.put("calibration coverage at q=0.9 is 1.5, not in [0, 1]", QuantileForestModel.newBuilder(good)
                .setCalibration(List.of(new QuantileCoverage(0.9, 1.5, 200L))).build());
        bad.put("calibration rows at q=0.5 is -1 < 0", QuantileForestModel.newBuilder(good)
                .setCalibration(List.of(new QuantileCoverage(0.5, 0.5, -1L))).build());
        bad.put("calibration quantile 1.0 is not in (0, 1)", QuantileForestModel.newBuilder(good)
                .setCalibration(List.of(new QuantileCoverage(1.0, 1.0, 200L))).build());
        bad.put("calibration quantiles are not strictly ascending", QuantileForestModel.newBuilder(good)
                .setCalibration(List.of(new QuantileCoverage(0.9, 0.9, 200L), new QuantileCoverage(0.5, 0.5, 200L)))
                .build());
        QuantileForestModel calibrated = QuantileForestModel.newBuilder(good)
                .setCalibration(List.of(new QuantileCoverage(0.5, 0.48, 200L), new QuantileCoverage(0.9, 0.91, 200L)))
                .build();
        assertThat(gate.validate(ParameterSnapshot.newBuilder(c).setQuantileModel(calibrated).build(), null)
                .rejections()).isEmpty();
        for (var e : bad.entrySet()) {
            ParameterSnapshot b = ParameterSnapshot.newBuilder(c).setQuantileModel(e.getValue()).build();
            assertThat(gate.validate(b, null).rejections()).as(e.getKey()).anySatisfy(r -> assertThat(r).contains(e.getKey()));
        }
    }

    @Test
    void aRejectionListsEveryProblem() {
        ParameterSnapshot c = assembler.assemble("default", 0, null, SnapshotFixtures.good(10_000));
        c = SnapshotFixtures.withValue(c, SnapshotParameter.ALPHA_P, Double.NaN);
        c = SnapshotFixtures.withValue(c, SnapshotParameter.LAMBDA, 2.0);
        c = SnapshotFixtures.withValue(c, SnapshotParameter.ALPHA_HO, -1);
        GateResult r = gate.validate(c, null);
        assertThat(r.rejections()).hasSize(3);
        assertThat(r.rejections()).anyMatch(s -> s.startsWith("alphaP"))
            .anyMatch(s -> s.startsWith("lambda = 2 1/s is outside"))
            .anyMatch(s -> s.startsWith("alphaHo = -1"));
        ParameterSnapshot back = roundTrip(r.snapshot());
        assertThat(back.getStatus()).isEqualTo(SnapshotStatus.REJECTED);
        assertThat(back.getRejectReasons()).isEqualTo(r.rejections());
        assertThat(Double.isNaN(back.getAlphaP().getValue())).isTrue();
    }

    static ParameterSnapshot withBandwidth(ParameterSnapshot s, Tier tier, FittedValue v) {
        List<TierBandwidth> bws = new ArrayList<>();
        for (TierBandwidth tb : s.getBandwidths()) {
            bws.add(tb.getTier() != tier ? tb : TierBandwidth.newBuilder(tb).setBytesPerSecond(v).build());
        }
        return ParameterSnapshot.newBuilder(s).setBandwidths(bws).build();
    }

    @Test
    void bandwidthJumpIsHeldOnceAndANoisyPeakIsHeld() {
        ParameterSnapshot active = active();
        ParameterSnapshot base = candidate(active, SnapshotFixtures.good(10_000));

        // CPU BW_t 50 GB/s -> 5 GB/s (a link's traffic moved, or a misreport), tight spread but only 1000 samples: the
        // active value stays for this publish, and the rest of the snapshot is applied
        ParameterSnapshot jumped = withBandwidth(base, Tier.CPU,
            SnapshotFixtures.fitted(5e9, null, 1000, 0.01 * 5e9, QualityKind.STD_ERROR));
        GateResult held = gate.validate(jumped, active);
        assertThat(held.accepted()).isTrue();
        assertThat(held.held()).singleElement().asString()
            .startsWith("held: bandwidth[CPU] jumps 10× from the active value 5E+10 to 5E+9 bytes/s");
        assertThat(SnapshotAssemblerTest.bandwidth(held.snapshot(), Tier.CPU).getValue()).isEqualTo(5e10);

        // a peak that is one burst: spread of the top bucket maxima 80 % of the value -> held
        ParameterSnapshot noisy = withBandwidth(base, Tier.NVME,
            SnapshotFixtures.fitted(9e9, null, 1000, 0.8 * 9e9, QualityKind.STD_ERROR));
        GateResult r = gate.validate(noisy, active);
        assertThat(r.accepted()).isTrue();
        assertThat(r.held()).singleElement().asString().startsWith("held: bandwidth[NVME] kept at the active value 6E+9 bytes/s");
        assertThat(r.snapshot().getBandwidths()).filteredOn(tb -> tb.getTier() == Tier.NVME).singleElement()
            .satisfies(tb -> assertThat(tb.getBytesPerSecond().getValue()).isEqualTo(6e9));

        // too few link samples behind a tier's peak
        ParameterSnapshot thin = withBandwidth(base, Tier.REMOTE,
            SnapshotFixtures.fitted(21e9, null, 5, 0.01 * 21e9, QualityKind.STD_ERROR));
        assertThat(gate.validate(thin, active).rejections())
            .containsExactly("bandwidth[REMOTE] = 2.1E+10 bytes/s fitted on 5 samples < minimum 30");
    }

    /**
     * A held BW_t keeps the active value with samples 0 and the window of the fit it came from, so the selector
     * still applies it (a fit) rather than falling back to the worker's configured link (a never-fitted default);
     * the next round inherits it the same way, and the jump check measures only from a value fitted in the active
     * version: BW_t's link samples never reach the overwhelming 20,000, so a carried baseline would reject every
     * later snapshot once the real link moved more than 4×.
     */
    @Test
    void aHeldFittedBandwidthKeepsItsWindowWithZeroSamples() {
        ParameterSnapshot active = active();
        FittedValue activeNvme = SnapshotAssemblerTest.bandwidth(active, Tier.NVME);
        assertThat(activeNvme.getSamples()).as("fitted in v1").isEqualTo(1000);
        ParameterSnapshot noisy = withBandwidth(candidate(active, SnapshotFixtures.good(10_000)), Tier.NVME,
            SnapshotFixtures.fitted(9e9, null, 1000, 0.8 * 9e9, QualityKind.STD_ERROR));
        GateResult r = gate.validate(noisy, active);
        assertThat(r.accepted()).isTrue();

        FittedValue held = SnapshotAssemblerTest.bandwidth(r.snapshot(), Tier.NVME);
        assertThat(held.getValue()).isEqualTo(6e9);
        assertThat(held.getSamples()).as("not fitted in v2").isZero();
        assertThat(held.getQualityKind()).isEqualTo(QualityKind.NONE);
        assertThat(held.getWindowStartMs()).as("v1's fit window").isEqualTo(activeNvme.getWindowStartMs());
        assertThat(held.getWindowEndMs()).isEqualTo(activeNvme.getWindowEndMs());
        assertThat(FittedProvenance.neverFitted(held)).isFalse();
        roundTrip(r.snapshot());

        // v3 against v2: the carried fit is no jump baseline (as a default is not), so a 10× peak with 1000 samples
        // is accepted rather than measured against v2's carried 6 GB/s
        ParameterSnapshot v2 = r.snapshot();
        ParameterSnapshot jumped = withBandwidth(assembler.assemble("default", 2, v2, SnapshotFixtures.good(10_000)),
            Tier.NVME, SnapshotFixtures.fitted(60e9, null, 1000, 0.01 * 60e9, QualityKind.STD_ERROR));
        GateResult r3 = gate.validate(jumped, v2);
        assertThat(r3.rejections()).isEmpty();
        assertThat(SnapshotAssemblerTest.bandwidth(r3.snapshot(), Tier.NVME).getValue()).isEqualTo(60e9);
        // the same peak against v1, where the 6 GB/s was fitted, is a jump: held for this publish
        ParameterSnapshot againstFit = withBandwidth(candidate(active, SnapshotFixtures.good(10_000)), Tier.NVME,
            SnapshotFixtures.fitted(60e9, null, 1000, 0.01 * 60e9, QualityKind.STD_ERROR));
        GateResult once = gate.validate(againstFit, active);
        assertThat(once.rejections()).isEmpty();
        assertThat(once.held()).containsExactly("held: bandwidth[NVME] jumps 10× from the active value 6E+9 to 6E+10"
            + " bytes/s (max factor 4) without overwhelming evidence; the active value stays (carried: the next fit is"
            + " applied if the shift persists)");
    }

    /**
     * A link's peak that moves for good (traffic 10× up) is applied one publish late, not refused for ever: BW_t's
     * samples are the link samples in the peak window, a count that never reaches the evidence that confirms a jump,
     * so refusing it rejected every later snapshot of the scope (an audit's probe: 210 of 210 publishes).
     */
    @Test
    void aBandwidthThatMovesForGoodIsAppliedOnePublishLate() {
        ParameterSnapshot v1 = active();
        FittedValue moved = SnapshotFixtures.fitted(60e9, null, 1000, 0.01 * 60e9, QualityKind.STD_ERROR);
        GateResult r2 = gate.validate(withBandwidth(candidate(v1, SnapshotFixtures.good(10_000)), Tier.NVME, moved), v1);
        assertThat(r2.accepted()).isTrue();
        assertThat(SnapshotAssemblerTest.bandwidth(r2.snapshot(), Tier.NVME).getValue()).isEqualTo(6e9);

        ParameterSnapshot v2 = r2.snapshot();
        GateResult r3 = gate.validate(withBandwidth(assembler.assemble("default", 2, v2, SnapshotFixtures.good(10_000)),
            Tier.NVME, moved), v2);
        assertThat(r3.accepted()).isTrue();
        assertThat(r3.held()).isEmpty();
        assertThat(SnapshotAssemblerTest.bandwidth(r3.snapshot(), Tier.NVME).getValue()).isEqualTo(60e9);
    }

    /**
     * An inherited value (samples 0) keeps the provenance of the value in force: a BW_t default turned into a
     * "carried fit" would override a worker's configured link in the selector, and a carried fit turned into a
     * default would let the selector drop it for the configured link.
     */
    @Test
    void anInheritedValueThatChangesItsProvenanceIsRejected() {
        ParameterSnapshot active = active();
        FittedValue activeAlphaP = active.getAlphaP();
        assertThat(activeAlphaP.getSamples()).as("fitted in v1").isPositive();
        ParameterSnapshot c = candidate(active, SnapshotFixtures.good(10_000));

        // v1's α_p carried with its window: an ordinary inherited value
        assertThat(gate.validate(SnapshotFixtures.with(c, SnapshotParameter.ALPHA_P, FittedValues.carried(activeAlphaP)),
            active).rejections()).isEmpty();
        // the same value passed off as a default
        assertThat(gate.validate(SnapshotFixtures.with(c, SnapshotParameter.ALPHA_P,
            FittedValues.carried(activeAlphaP.getValue())), active).rejections())
            .containsExactly("alphaP is unfitted (samples 0) but its window [0, 0) is not that of the active value, ["
                + activeAlphaP.getWindowStartMs() + ", " + activeAlphaP.getWindowEndMs() + "): an inherited value keeps"
                + " where it came from (a fit's window, or [0, 0) for a default)");
        // the first snapshot: a default given a window it never had
        ParameterSnapshot first = assembler.assemble("default", 0, null, FitResults.empty());
        FittedValue faked = FittedValue.newBuilder(first.getAlphaWf()).setWindowStartMs(5).setWindowEndMs(10).build();
        assertThat(gate.validate(SnapshotFixtures.with(first, SnapshotParameter.ALPHA_WF, faked), null).rejections())
            .containsExactly("alphaWf is unfitted (samples 0) but its window [5, 10) is not that of the default, [0, 0):"
                + " an inherited value keeps where it came from (a fit's window, or [0, 0) for a default)");
    }

    @Test
    void malformedEvidenceIsRejected() {
        ParameterSnapshot c = assembler.assemble("default", 0, null, SnapshotFixtures.good(10_000));
        c = SnapshotFixtures.with(c, SnapshotParameter.ALPHA_D,
            FittedValue.newBuilder(c.getAlphaD()).setSamples(-1).build());
        c = SnapshotFixtures.with(c, SnapshotParameter.ALPHA_D2,
            FittedValue.newBuilder(c.getAlphaD2()).setStdError(Double.NaN).build());
        c = SnapshotFixtures.with(c, SnapshotParameter.ALPHA_T,
            FittedValue.newBuilder(c.getAlphaT()).setWindowStartMs(SnapshotFixtures.T1 + 1).build());
        assertThat(gate.validate(c, null).rejections()).containsExactly(
            "alphaD: samples -1 < 0",
            "alphaD2: standard error NaN is NaN or negative",
            "alphaT: window start " + (SnapshotFixtures.T1 + 1) + " after end " + SnapshotFixtures.T1);
    }
}
