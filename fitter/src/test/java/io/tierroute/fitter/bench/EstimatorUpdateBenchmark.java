package io.tierroute.fitter.bench;

import io.tierroute.fitter.bandwidth.LinkKey;
import io.tierroute.fitter.bandwidth.RhoConfig;
import io.tierroute.fitter.bandwidth.RhoOutcome;
import io.tierroute.fitter.bandwidth.RhoTracker;
import io.tierroute.fitter.decay.DecayConfig;
import io.tierroute.fitter.decay.DecayFitter;
import io.tierroute.fitter.decay.DecayKey;
import io.tierroute.fitter.decay.DecayObservation;
import io.tierroute.fitter.decay.DecayOutcome;
import io.tierroute.fitter.prior.PoolKey;
import io.tierroute.fitter.prior.PriorConfig;
import io.tierroute.fitter.prior.PriorOutcome;
import io.tierroute.fitter.prior.TelemetryPriors;
import io.tierroute.fitter.regression.LatencyObservation;
import io.tierroute.fitter.regression.LatencyRegression;
import io.tierroute.fitter.regression.RegressionConfig;
import io.tierroute.fitter.regression.UpdateOutcome;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * Steady-state throughput of one estimator update on one thread (= per core; every estimator is
 * single-threaded, one instance per keyed operator). Each benchmark offers the next of a ring of
 * pre-drawn valid inputs to a long-lived estimator, so the figure includes the estimator's amortised
 * periodic work (the latency regression's NNLS refit every 16 rows over 17 Q_slack candidates, the
 * peak-bandwidth bucket roll-over, the λ miss histogram) and its map look-ups, not input generation.
 * Timestamps advance by a fixed step per call so that time-ordered estimators never reject.
 *
 * <p>Run: {@code MODULE=fitter MVN_ARGS=-o bench/run-jmh.sh EstimatorUpdate -wi 2 -i 3 -w 1s -r 1s -f 1}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class EstimatorUpdateBenchmark {

    private static final int RING = 1 << 14;

    // latency regression
    private LatencyRegression regression;
    private LatencyObservation[] rows;
    private int nextRow;

    // ρ_t tracker: 64 workers × 3 tiers, 1 s samples
    private RhoTracker rho;
    private LinkKey[] links;
    private long[] bytes;
    private int nextLink;
    private long rhoTimeMs;

    // λ: 3 scopes × 3 pressure buckets, all five observation kinds
    private DecayFitter decay;
    private DecayKey[] decayKeys;
    private DecayObservation[] decayObs;
    private int nextDecay;

    // telemetry priors: 3 pools × 16 workers, 1 s samples
    private TelemetryPriors priors;
    private String[] workers;
    private PoolKey[] workerPool;
    private double[][] counters;
    private int nextPrior;
    private long priorTimeMs;

    @Setup(Level.Trial)
    public void setup() {
        SplittableRandom r = new SplittableRandom(42);
        regression = new LatencyRegression(RegressionConfig.defaults().withTrackingHorizon(10_000));
        rows = new LatencyObservation[RING];
        double[] truth = {1.0, 1e-4, 50, 0.001, 1.0, 100, 5000, 4000};
        for (int i = 0; i < RING; i++) {
            rows[i] = regressionRow(r, truth, 1_700_000_000_000L + 100L * i);
        }
        // warm the regression past its burn-in so the benchmark measures the streaming path
        for (int i = 0; i < 1_000; i++) {
            regression.update(rows[i]);
        }

        rho = new RhoTracker(RhoConfig.defaults());
        String[] tiers = {"CPU", "NVME", "REMOTE"};
        links = new LinkKey[64 * tiers.length];
        for (int w = 0; w < 64; w++) {
            for (int t = 0; t < tiers.length; t++) {
                links[w * tiers.length + t] = new LinkKey("w" + w, tiers[t]);
            }
        }
        bytes = new long[RING];
        for (int i = 0; i < RING; i++) {
            bytes[i] = (long) (r.nextDouble() * 2e9);
        }
        rhoTimeMs = 1_700_000_000_000L;

        decay = new DecayFitter(DecayConfig.defaults());
        decayKeys = new DecayKey[RING];
        decayObs = new DecayObservation[RING];
        for (int i = 0; i < RING; i++) {
            decayKeys[i] = new DecayKey("scope" + r.nextInt(3), r.nextInt(3));
            long t = 1_700_000_000_000L + i;
            double idle = r.nextDouble() * 480;
            double u = r.nextDouble();
            decayObs[i] = u < 0.25 ? DecayObservation.hit(idle, t)
                : u < 0.5 ? DecayObservation.miss(idle + 0.01, t)
                : u < 0.7 ? DecayObservation.stillCachedAt(idle, t)
                : u < 0.8 ? DecayObservation.evictedAt(idle + 0.01, t)
                : DecayObservation.fraction(idle + 0.01, r.nextInt(17) / 16.0, 16, t);
        }

        priors = new TelemetryPriors(PriorConfig.defaults());
        PoolKey[] pools = {new PoolKey("vllm", "h100-80g"), new PoolKey("vllm", "a100-40g"),
            new PoolKey("sglang", "h100-80g")};
        workers = new String[48];
        workerPool = new PoolKey[48];
        for (int w = 0; w < 48; w++) {
            workers[w] = "w" + w;
            workerPool[w] = pools[w % 3];
        }
        counters = new double[RING][];
        for (int i = 0; i < RING; i++) {
            double tokens = r.nextDouble() < 0.2 ? 0 : 1 + r.nextInt(8_000);
            double steps = r.nextDouble() < 0.1 ? 0 : 1 + r.nextInt(40);
            counters[i] = new double[] {tokens, tokens == 0 ? 0 : tokens * 60 * (1 + 0.1 * r.nextGaussian()),
                steps, steps == 0 ? 0 : steps * 14_000 * (1 + 0.1 * r.nextGaussian()), r.nextInt(64)};
        }
        priorTimeMs = 1_700_000_000_000L;
    }

    /** The figures are only meaningful if every offered input took the accepting path. */
    @TearDown(Level.Trial)
    public void checkNothingRejected() {
        long rejected = 0;
        for (UpdateOutcome o : UpdateOutcome.values()) {
            rejected += o == UpdateOutcome.ACCEPTED ? 0 : regression.rejected(o);
        }
        for (RhoOutcome o : RhoOutcome.values()) {
            rejected += o.accepted() ? 0 : rho.count(o);
        }
        for (DecayOutcome o : DecayOutcome.values()) {
            rejected += o == DecayOutcome.ACCEPTED ? 0 : decay.count(o);
        }
        for (PriorOutcome o : PriorOutcome.values()) {
            rejected += o.accepted() ? 0 : priors.count(o);
        }
        if (rejected > 0) {
            throw new IllegalStateException(rejected + " benchmark inputs were rejected");
        }
    }

    static LatencyObservation regressionRow(SplittableRandom rnd, double[] truth, long t) {
        while (true) {
            double isl = 500 + rnd.nextDouble() * 15500;
            double hit = Math.floor(isl * (rnd.nextDouble() < 0.3 ? 0 : rnd.nextDouble()));
            double pEff = isl - hit;
            double kv = rnd.nextDouble() < 0.1 ? rnd.nextDouble() * 2000 : 0;
            double quad = (isl * isl - hit * hit) / 2;
            double sumD = rnd.nextDouble() < 0.7 ? rnd.nextDouble() * 400 : 0;
            double quadD = sumD * rnd.nextDouble() * 40000 + sumD * sumD / 4;
            double tier = rnd.nextDouble() < 0.5 ? rnd.nextDouble() * 20000 : 0;
            int q = rnd.nextInt(21);
            double aff = rnd.nextDouble() < 0.5 ? Math.exp(-rnd.nextDouble() * 300 / 120.0) : 0;
            double tools = rnd.nextDouble() < 0.5 ? rnd.nextDouble() : 0;
            double mean = truth[0] * (pEff + kv) + truth[1] * quad + truth[2] * sumD + truth[3] * quadD
                + truth[4] * tier + truth[5] * Math.max(0, q - 4) * Math.max(0, q - 4)
                - truth[6] * aff - truth[7] * tools;
            if (mean < 3000) {
                continue;
            }
            double y = mean * (1 + 0.1 * rnd.nextGaussian());
            if (rnd.nextDouble() < 0.01) {
                y *= 10;
            }
            return new LatencyObservation(t, Math.max(0, y), pEff, kv, quad, sumD, quadD, tier, q, aff, tools);
        }
    }

    @Benchmark
    public UpdateOutcome latencyRegressionUpdate() {
        LatencyObservation row = rows[nextRow];
        nextRow = (nextRow + 1) & (RING - 1);
        return regression.update(row);
    }

    @Benchmark
    public RhoOutcome rhoTrackerUpdate() {
        int i = nextLink;
        nextLink = (nextLink + 1) % links.length;
        if (i == 0) {
            rhoTimeMs += 1_000;
        }
        return rho.update(links[i], rhoTimeMs, 1_000, bytes[i & (RING - 1)] / 1000 * (1 + (i & 7)), 64e9);
    }

    @Benchmark
    public DecayOutcome decayFitterAdd() {
        int i = nextDecay;
        nextDecay = (nextDecay + 1) & (RING - 1);
        return decay.add(decayKeys[i], decayObs[i]);
    }

    @Benchmark
    public PriorOutcome telemetryPriorsUpdate() {
        int i = nextPrior;
        nextPrior = (nextPrior + 1) & (RING - 1);
        int w = i % workers.length;
        if (w == 0) {
            priorTimeMs += 1_000;
        }
        double[] c = counters[i];
        return priors.update(workers[w], workerPool[w], priorTimeMs, 1_000, c[0], Math.max(c[0] == 0 ? 0 : 1, c[1]),
            c[2], Math.max(c[2] == 0 ? 0 : 1, c[3]), c[4]);
    }
}
