package io.tierroute.schemas.snapshot;

import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * THE table of physical bounds (one place): every parameter of a {@link ParameterSnapshot}, its unit,
 * the interval a value must lie in to be physical, its DESIGN.md §3 default, and its "negligible"
 * magnitude. Units follow {@code CostParameters} (selector-runtime) and the .avsc docs. It lives in
 * {@code schemas} because two boundaries enforce it: the fitter's validation gate before a snapshot
 * is published, and the selector's snapshot converter before one is applied (a hand-published or
 * corrupted "ACCEPTED" record must not reach an active parameter set either).
 *
 * <pre>
 * parameter  unit             bounds              default   negligible  jump-checked
 * alphaP     µs/token         (0, 1e4]            1.0       1e-3        yes
 * alphaP2    µs/token²        [0, 0.1]            0         1e-7        yes
 * alphaD     µs/token         [0, 1e5]            50        1e-2        yes
 * alphaD2    µs/token²        [0, 10]             0.001     1e-6        yes
 * alphaT     dimensionless    [0, 100]            1.0       1e-3        yes
 * alphaHo    µs/request²      [0, 1e7]            100       1e-1        yes
 * qSlack     requests         [0, 1024]           4         1           yes
 * alphaWf    µs               [0, 1e8]            5000      1           yes
 * lambda     1/s              [1e-6, 1]           1/120     1e-6        yes
 * alphaWf2   µs               [0, 1e8]            0         1           yes
 * decodeStepUs   µs/token     [0, 1e6]          0         100         yes   (τ₀ of C_kv's admission wait W)
 * decodeStepKvUs µs/token²    [0, 10]           0         1e-4        yes   (α of W, per resident KV token)
 * kvWaitScale    dimensionless [0, 1]           1         0.25        yes   (k on W; judged on its absolute error)
 * bandwidth  bytes/s          (1e6, 1e13]         per tier  1e6         yes   (per non-HBM tier, BW_t)
 * rho        dimensionless    [0, 1]              0         0.05        no    (per worker and tier)
 * </pre>
 *
 * <p>Why these bounds. α_p > 0: prefill is never free, and 10 ms per token is ~100× slower than any
 * GPU. α_p2 ≤ 0.1 µs/token²: even 0.1 makes a 128 k-token recompute cost 800 s. λ ∈ [1e-6, 1] 1/s: a
 * mean cached-prefix lifetime between 1 s and ~11 days (the job's λ MLE stops at the same bounds, so that misses
 * faster than that fit at the bound instead of rejecting the snapshot; a lifetime below 1 s is not a cache). BW_t in (1 MB/s, 10 TB/s]: slower than any disk or faster than
 * any HBM link means a unit error. ρ is a utilisation.
 *
 * <p>"Negligible" is the magnitude below which a value is as good as 0. It is used as the floor of the
 * denominator in the relative standard error {@code SE / max(|value|, negligible)} and in the jump ratio
 * {@code max(|new|, negligible) / max(|old|, negligible)}, so that a coefficient at (or moving to/from) 0
 * — common under NNLS — is not treated as infinitely uncertain or as an infinite jump.
 */
public enum SnapshotParameter {
    ALPHA_P("alphaP", "µs/token", 0, false, 1e4, 1.0, 1e-3,
        ParameterSnapshot::getAlphaP, ParameterSnapshot.Builder::setAlphaP),
    ALPHA_P2("alphaP2", "µs/token²", 0, true, 0.1, 0.0, 1e-7,
        ParameterSnapshot::getAlphaP2, ParameterSnapshot.Builder::setAlphaP2),
    ALPHA_D("alphaD", "µs/token", 0, true, 1e5, 50.0, 1e-2,
        ParameterSnapshot::getAlphaD, ParameterSnapshot.Builder::setAlphaD),
    ALPHA_D2("alphaD2", "µs/token²", 0, true, 10, 0.001, 1e-6,
        ParameterSnapshot::getAlphaD2, ParameterSnapshot.Builder::setAlphaD2),
    ALPHA_T("alphaT", "(dimensionless)", 0, true, 100, 1.0, 1e-3,
        ParameterSnapshot::getAlphaT, ParameterSnapshot.Builder::setAlphaT),
    ALPHA_HO("alphaHo", "µs/request²", 0, true, 1e7, 100.0, 1e-1,
        ParameterSnapshot::getAlphaHo, ParameterSnapshot.Builder::setAlphaHo),
    Q_SLACK("qSlack", "requests", 0, true, 1024, 4.0, 1,
        ParameterSnapshot::getQSlack, ParameterSnapshot.Builder::setQSlack),
    ALPHA_WF("alphaWf", "µs", 0, true, 1e8, 5000.0, 1,
        ParameterSnapshot::getAlphaWf, ParameterSnapshot.Builder::setAlphaWf),
    LAMBDA("lambda", "1/s", 1e-6, true, 1, 1.0 / 120.0, 1e-6,
        ParameterSnapshot::getLambda, ParameterSnapshot.Builder::setLambda),
    ALPHA_WF2("alphaWf2", "µs", 0, true, 1e8, 0.0, 1,
        ParameterSnapshot::getAlphaWf2, ParameterSnapshot.Builder::setAlphaWf2),
    /** τ₀ of the admission wait; 1 s per decode token is no GPU, 0.1 ms per token none either. 0 (with α 0): no wait term. */
    DECODE_STEP_US("decodeStepUs", "µs/token", 0, true, 1e6, 0.0, 100,
        ParameterSnapshot::getDecodeStepUs, ParameterSnapshot.Builder::setDecodeStepUs),
    /** α of the admission wait; 10 µs per resident token makes a 1 M-token KV a 10 s step, 1e-4 a 10 µs one. */
    DECODE_STEP_KV_US("decodeStepKvUs", "µs/token²", 0, true, 10, 0.0, 1e-4,
        ParameterSnapshot::getDecodeStepKvUs, ParameterSnapshot.Builder::setDecodeStepKvUs),
    /**
     * k on the admission wait W: a calibration share in [0, 1], so its precision is judged against 0.25 rather than its
     * own size (a k of 0.003 ± 0.007 says "no wait for HBM here" as clearly as 0.9 ± 0.007 says the opposite).
     */
    KV_WAIT_SCALE("kvWaitScale", "(dimensionless)", 0, true, 1, 1.0, 0.25,
        ParameterSnapshot::getKvWaitScale, ParameterSnapshot.Builder::setKvWaitScale),
    /** BW_t of one non-HBM tier; the default is per tier (the fitter's {@code SnapshotAssembler}). */
    BANDWIDTH("bandwidth", "bytes/s", 1e6, false, 1e13, Double.NaN, 1e6, null, null),
    /** ρ_t(w); a missing (worker, tier) pair means 0. Not jump-checked: it is live utilisation. */
    RHO("rho", "(dimensionless)", 0, true, 1, 0.0, 0.05, null, null);

    /** The thirteen scalar parameters (one FittedValue field each), in schema order. */
    public static final SnapshotParameter[] SCALARS = {
        ALPHA_P, ALPHA_P2, ALPHA_D, ALPHA_D2, ALPHA_T, ALPHA_HO, Q_SLACK, ALPHA_WF, LAMBDA, ALPHA_WF2,
        DECODE_STEP_US, DECODE_STEP_KV_US, KV_WAIT_SCALE};

    private final String field;
    private final String unit;
    private final double lower;
    private final boolean lowerInclusive;
    private final double upper;
    private final double defaultValue;
    private final double negligible;
    private final Function<ParameterSnapshot, FittedValue> getter;
    private final BiConsumer<ParameterSnapshot.Builder, FittedValue> setter;

    SnapshotParameter(String field, String unit, double lower, boolean lowerInclusive, double upper,
            double defaultValue, double negligible, Function<ParameterSnapshot, FittedValue> getter,
            BiConsumer<ParameterSnapshot.Builder, FittedValue> setter) {
        this.field = field;
        this.unit = unit;
        this.lower = lower;
        this.lowerInclusive = lowerInclusive;
        this.upper = upper;
        this.defaultValue = defaultValue;
        this.negligible = negligible;
        this.getter = getter;
        this.setter = setter;
    }

    /** The ParameterSnapshot field name (for BANDWIDTH / RHO: a label). */
    public String field() {
        return field;
    }

    public String unit() {
        return unit;
    }

    public double lower() {
        return lower;
    }

    public boolean lowerInclusive() {
        return lowerInclusive;
    }

    /** Upper bound, always inclusive. */
    public double upper() {
        return upper;
    }

    /** DESIGN.md §3 default (NaN for BANDWIDTH: per tier). */
    public double defaultValue() {
        return defaultValue;
    }

    public double negligible() {
        return negligible;
    }

    /** ρ is exempt from the jump check (it is a live utilisation that legitimately moves 10× in seconds). */
    public boolean jumpChecked() {
        return this != RHO;
    }

    /**
     * Whether a value fitted on fewer rows than the gate's minimum is HELD (the value in force kept) rather than
     * rejecting the snapshot: ρ, and the admission wait's τ₀, α and k, whose rows are a subset of the latency
     * regression's (requests that decoded; requests that overflowed) and may stay few where the fleet has room.
     */
    public boolean holdsOnFewSamples() {
        return this == RHO || isAdmissionWait();
    }

    /**
     * τ₀, α or k of C_kv's admission wait: fitted together, so the gate holds them together, and a jump holds them
     * (the value in force stays) instead of rejecting the snapshot.
     */
    public boolean isAdmissionWait() {
        return this == DECODE_STEP_US || this == DECODE_STEP_KV_US || this == KV_WAIT_SCALE;
    }

    /**
     * Whether a jump beyond the gate's factor without overwhelming evidence HOLDS (the value in force stays, carried, so
     * the next fit is applied if it persists) rather than rejecting the snapshot: the admission wait's three, and BW_t.
     * Neither can ever gather the evidence that confirms a jump: the admission wait's rows are few, and BW_t's samples are
     * the link samples in the peak window, a count that does not grow; a real shift (a link's peak 10× up or down) would
     * otherwise reject every later snapshot of the scope.
     */
    public boolean holdsJumps() {
        return isAdmissionWait() || this == BANDWIDTH;
    }

    /** The admission wait's parameters, in schema order. */
    public static final SnapshotParameter[] ADMISSION_WAIT = {DECODE_STEP_US, DECODE_STEP_KV_US, KV_WAIT_SCALE};

    public boolean inBounds(double v) {
        return (lowerInclusive ? v >= lower : v > lower) && v <= upper;
    }

    /** The bounds as an interval string with the unit, e.g. {@code (0, 10000] µs/token}. */
    public String boundsText() {
        return (lowerInclusive ? "[" : "(") + format(lower) + ", " + format(upper) + "] " + unit;
    }

    /** The field of a scalar parameter; IllegalStateException for BANDWIDTH / RHO. */
    public FittedValue get(ParameterSnapshot s) {
        if (getter == null) {
            throw new IllegalStateException(this + " is not a scalar field");
        }
        return getter.apply(s);
    }

    public void set(ParameterSnapshot.Builder b, FittedValue v) {
        if (setter == null) {
            throw new IllegalStateException(this + " is not a scalar field");
        }
        setter.accept(b, v);
    }

    /** A value as messages show it: 6 significant digits, plain unless very small or large. */
    public static String format(double v) {
        if (!Double.isFinite(v)) {
            return Double.toString(v);
        }
        if (v == 0) {
            return "0";
        }
        BigDecimal d = new BigDecimal(v).round(new MathContext(6)).stripTrailingZeros();
        double a = Math.abs(v);
        return a >= 1e-4 && a < 1e9 ? d.toPlainString() : d.toString();
    }
}
