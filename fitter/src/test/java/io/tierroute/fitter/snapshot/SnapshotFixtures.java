package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.snapshot.SnapshotParameter;
import io.tierroute.fitter.Estimate;
import io.tierroute.fitter.QualityKind;
import io.tierroute.fitter.bandwidth.LinkKey;
import io.tierroute.fitter.decay.DecayFit;
import io.tierroute.fitter.regression.Coefficient;
import io.tierroute.fitter.regression.LatencyFit;
import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.Tier;
import java.util.EnumMap;
import java.util.Map;
import java.util.OptionalDouble;

/** Fitted results built from known values (real records, no mocks). */
final class SnapshotFixtures {
    static {
        io.tierroute.schemas.AvroTrust.install();
    }

    static final long T0 = 1_700_000_000_000L;
    static final long T1 = T0 + 3_600_000L;
    /** Truth of the regression tests: α_p, α_p2, α_d, α_d2, α_t, α_ho, α_wf, α_wf2. */
    static final double[] ALPHAS = {1.0, 1e-4, 50, 0.001, 1.0, 100, 5000, 4000};

    private SnapshotFixtures() {
    }

    static Estimate regression(double value, double relSe, long n, double r2) {
        return new Estimate(value, OptionalDouble.of(relSe * value), n, r2, QualityKind.R2, T0, T1);
    }

    /** A latency fit with every α at {@code alphas[i]}, relative SE relSe, n rows, R² r2, Q_slack 4. */
    static LatencyFit latency(double[] alphas, double relSe, long n, double r2) {
        Map<Coefficient, Estimate> m = new EnumMap<>(Coefficient.class);
        for (Coefficient c : Coefficient.values()) {
            m.put(c, regression(alphas[c.ordinal()], relSe, n, r2));
        }
        Estimate q = new Estimate(4, OptionalDouble.empty(), n, r2, QualityKind.R2, T0, T1);
        return new LatencyFit(m, q, 0, 0, r2, n, n, 0.1, 0.01, new double[17]);
    }

    static LatencyFit latency(long n) {
        return latency(ALPHAS, 0.01, n, 0.9);
    }

    static DecayFit decay(double lambda, double relSe, long n) {
        Estimate e = new Estimate(lambda, OptionalDouble.of(relSe * lambda), n, relSe * lambda,
            QualityKind.STD_ERROR, T0, T1);
        return new DecayFit(e, false, false, 7, n / 3.0, n * 100.0, n / 3.0);
    }

    static Estimate bandwidth(double bytesPerSecond, long n) {
        return new Estimate(bytesPerSecond, OptionalDouble.empty(), n, 0.01 * bytesPerSecond,
            QualityKind.STD_ERROR, T0, T1);
    }

    static Estimate rho(double rho, long n) {
        return new Estimate(rho, OptionalDouble.of(0.01), n, 0.01, QualityKind.STD_ERROR, T0, T1);
    }

    /** A complete, good set of results: every scalar, all three tiers, two workers' CPU ρ. */
    static FitResults good(long n) {
        return new FitResults(latency(n),
            Map.of(new LinkKey("w1", "CPU"), rho(0.3, 500), new LinkKey("w2", "CPU"), rho(0.1, 500)),
            Map.of(Tier.CPU, bandwidth(50e9, 1000), Tier.NVME, bandwidth(6e9, 1000), Tier.REMOTE, bandwidth(20e9, 1000)),
            decay(1.0 / 120, 0.03, 5000), null);
    }

    static FittedValue fitted(double value, Double se, long samples, double quality,
            io.tierroute.schemas.avro.QualityKind kind) {
        return FittedValue.newBuilder().setValue(value).setStdError(se).setSamples(samples).setQuality(quality)
            .setQualityKind(kind).setWindowStartMs(T0).setWindowEndMs(T1).build();
    }

    /** The candidate with one scalar replaced. */
    static ParameterSnapshot with(ParameterSnapshot s, SnapshotParameter p, FittedValue v) {
        ParameterSnapshot.Builder b = ParameterSnapshot.newBuilder(s);
        p.set(b, v);
        return b.build();
    }

    /** The candidate with one scalar's value replaced, its evidence kept. */
    static ParameterSnapshot withValue(ParameterSnapshot s, SnapshotParameter p, double value) {
        FittedValue v = FittedValue.newBuilder(p.get(s)).setValue(value).build();
        return with(s, p, v);
    }
}
