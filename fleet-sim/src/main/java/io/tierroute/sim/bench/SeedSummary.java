package io.tierroute.sim.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The spread of a benchmark over several seeds. Fed one seed's reports at a time ({@link #add}); it keeps
 * only the summarised metrics, not the reports (their histograms would fill the heap over hundreds of seeds).
 * <p>
 * Per load, policy and metric of {@link #METRICS}: the geometric mean over the seeds, the minimum and the
 * maximum; for the latencies ({@link #RATIO_METRICS}, lower is better) also the ratio "best other policy /
 * this policy" of each seed (&gt; 1: this policy beat every other one of that seed's run), summarised by its
 * geometric mean, its minimum and the number of seeds where it is below {@link #BEHIND} (more than 3 % behind).
 * A run in which the policy completed no request (every one rejected) has no latency: it is left out of
 * every metric and ratio of that policy, and out of the "best other" of the other policies ({@link #leftOut()}).
 */
public final class SeedSummary {

    /** The summarised metrics, in report order. */
    public static final List<String> METRICS = List.of("ttft_mean_s", "ttft_p50_s", "ttft_p90_s", "ttft_p99_s",
            "jct_mean_s", "jct_p99_s", "throughput_tok_s");
    /** The metrics with a ratio against the best other policy: latencies, lower is better. */
    public static final List<String> RATIO_METRICS = METRICS.subList(0, 6);
    /** A ratio below this is "behind": more than 3 % worse than the best other policy. */
    public static final double BEHIND = 0.97;

    /**
     * One load × policy × metric over the seeds. {@code seeds} is how many seeds had a value; the statistics
     * are NaN when none did. The ratio fields are NaN ({@code ratioSeeds} -1) for a metric without ratio.
     */
    public record Row(double load, String policy, String metric, int seeds, double geomean, double min, double max,
                      int ratioSeeds, double ratioGeomean, double ratioMin, int ratioBelow) {
        public boolean hasRatio() {
            return ratioSeeds >= 0;
        }
    }

    private final List<Long> seeds = new ArrayList<>();
    private final Set<Double> loads = new LinkedHashSet<>();
    private final Set<String> policies = new LinkedHashSet<>();
    /** (load, policy) → seed → the values of METRICS, or null when the run completed no request. */
    private final Map<String, Map<Long, double[]>> values = new LinkedHashMap<>();
    private final List<String> leftOut = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private RunParameters run = new RunParameters(List.of());

    /** How the sweep was run (the summary files' header), as {@link SeedSweep} records it; none by default. */
    public SeedSummary run(RunParameters run) {
        this.run = java.util.Objects.requireNonNull(run);
        return this;
    }

    public RunParameters run() {
        return run;
    }

    /** Adds the reports of one seed's benchmark (every policy × load). */
    public SeedSummary add(long seed, List<RunReport> reports) {
        if (seeds.contains(seed)) {
            throw new IllegalArgumentException("seed " + seed + " added twice");
        }
        seeds.add(seed);
        for (RunReport r : reports) {
            loads.add(r.load());
            policies.add(r.policy());
            double[] v = null;
            if (r.get("requests") > 0) {
                v = new double[METRICS.size()];
                for (int i = 0; i < v.length; i++) {
                    v[i] = r.get(METRICS.get(i));
                }
            } else {
                leftOut.add(String.format(Locale.ROOT, "%s @ load %.2f, seed %d", r.policy(), r.load(), seed));
            }
            values.computeIfAbsent(key(r.load(), r.policy()), k -> new LinkedHashMap<>()).put(seed, v);
            if (r.note() != null) {
                notes.add(String.format(Locale.ROOT, "%s @ load %.2f, seed %d: %s", r.policy(), r.load(), seed, r.note()));
            }
        }
        return this;
    }

    public List<Long> seeds() {
        return List.copyOf(seeds);
    }

    /** The runs left out because the policy completed no request: "policy @ load 1.00, seed 3". */
    public List<String> leftOut() {
        return List.copyOf(leftOut);
    }

    /** The runs' notes ({@link RunReport#note()}): "tierroute-fitted @ load 1.00, seed 3: not fitted, ...". */
    public List<String> notes() {
        return List.copyOf(notes);
    }

    /** Every load × policy × metric, loads and policies in the order first reported. */
    public List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (double load : loads) {
            for (String policy : policies) {
                Map<Long, double[]> mine = values.get(key(load, policy));
                if (mine == null) {
                    continue;
                }
                for (int m = 0; m < METRICS.size(); m++) {
                    List<Double> xs = new ArrayList<>();
                    for (double[] v : mine.values()) {
                        if (v != null && !Double.isNaN(v[m])) {
                            xs.add(v[m]);
                        }
                    }
                    List<Double> ratios = new ArrayList<>(ratios(load, policy, mine, m).values());
                    boolean hasRatio = RATIO_METRICS.contains(METRICS.get(m));
                    rows.add(new Row(load, policy, METRICS.get(m), xs.size(), geomean(xs), min(xs), max(xs),
                            hasRatio ? ratios.size() : -1,
                            hasRatio ? geomean(ratios) : Double.NaN,
                            hasRatio ? min(ratios) : Double.NaN,
                            hasRatio ? (int) ratios.stream().filter(r -> r < BEHIND).count() : -1));
                }
            }
        }
        return rows;
    }

    /** The loads, in the order first reported. */
    public List<Double> loads() {
        return List.copyOf(loads);
    }

    /** The policies, in the order first reported. */
    public List<String> policies() {
        return List.copyOf(policies);
    }

    /**
     * Per seed (in the order added), the ratio best other policy / {@code policy} of a metric of
     * {@link #RATIO_METRICS} at {@code load}: the values {@link #rows()} summarises, for plotting each seed.
     * A seed without a finite ratio (no value, or no other policy with one) is absent.
     */
    public Map<Long, Double> ratios(double load, String policy, String metric) {
        if (!RATIO_METRICS.contains(metric)) {
            throw new IllegalArgumentException("no ratio for " + metric + "; ratios: " + RATIO_METRICS);
        }
        Map<Long, double[]> mine = values.get(key(load, policy));
        return mine == null ? Map.of() : ratios(load, policy, mine, METRICS.indexOf(metric));
    }

    private Map<Long, Double> ratios(double load, String policy, Map<Long, double[]> mine, int m) {
        Map<Long, Double> ratios = new LinkedHashMap<>();
        for (Map.Entry<Long, double[]> e : mine.entrySet()) {
            double[] v = e.getValue();
            if (v == null || Double.isNaN(v[m])) {
                continue;
            }
            double ratio = bestOther(load, policy, e.getKey(), m) / v[m];
            if (Double.isFinite(ratio)) {
                ratios.put(e.getKey(), ratio);
            }
        }
        return ratios;
    }

    /** The lowest value of metric {@code m} among the other policies' runs at {@code load} with {@code seed}; NaN if none. */
    private double bestOther(double load, String policy, long seed, int m) {
        double best = Double.NaN;
        for (String other : policies) {
            if (other.equals(policy)) {
                continue;
            }
            Map<Long, double[]> theirs = values.get(key(load, other));
            double[] v = theirs == null ? null : theirs.get(seed);
            if (v != null && !Double.isNaN(v[m]) && !(v[m] >= best)) {
                best = v[m];
            }
        }
        return best;
    }

    /** exp of the mean log: the mean of ratios and of latencies that span orders of magnitude. NaN when empty. */
    static double geomean(List<Double> xs) {
        if (xs.isEmpty()) {
            return Double.NaN;
        }
        double logs = 0;
        for (double x : xs) {
            logs += Math.log(x);
        }
        return Math.exp(logs / xs.size());
    }

    private static double min(List<Double> xs) {
        return xs.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    private static double max(List<Double> xs) {
        return xs.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    private static String key(double load, String policy) {
        return load + "\u0000" + policy;
    }
}
