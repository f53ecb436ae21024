package io.tierroute.selector.bench;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import java.util.Arrays;

/**
 * Wall times of two variants of one operation measured in alternation, pair by pair, over measurement iterations,
 * printed per trial as a {@code [paired]} line: medians, means and the median of the per-pair difference (what b's
 * extra steps cost: they do not depend on the prompt, so their median is their mean), per step and as a share of a
 * mean operation ({@code (b - a) / (mean a + (b - a))}). Both
 * variants see the same machine within microseconds of each other, so a neighbour's load or a descheduled thread
 * (an outlier the medians ignore) no longer lands on one variant only, as it does between benchmarks run minutes
 * apart. One thread per instance.
 */
@State(Scope.Thread)
public class PairedTimes {

    private static final int CAPACITY = 1 << 21;

    private final long[] a = new long[CAPACITY];
    private final long[] b = new long[CAPACITY];
    private int count;
    private boolean measuring;
    private String aName = "a";
    private String bName = "b";
    private int bSteps = 1;

    @Setup(Level.Iteration)
    public void start(IterationParams iteration) {
        measuring = iteration.getType() == IterationType.MEASUREMENT;
    }

    /** Records one pair: variant a's and variant b's nanoseconds. */
    public void record(long aNanos, long bNanos) {
        if (measuring && count < CAPACITY) {
            a[count] = aNanos;
            b[count] = bNanos;
            count++;
        }
    }

    /**
     * What the variants are, for the printed line; {@code bSteps}: how many extra steps b does, to state the
     * difference per step.
     */
    public void describe(String aName, String bName, int bSteps) {
        this.aName = aName;
        this.bName = bName;
        this.bSteps = bSteps;
    }

    @TearDown(Level.Trial)
    public void report(BenchmarkParams params) {
        if (count == 0) {
            return;
        }
        long[] diff = new long[count];
        double sumA = 0;
        double sumB = 0;
        for (int i = 0; i < count; i++) {
            diff[i] = b[i] - a[i];
            sumA += a[i];
            sumB += b[i];
        }
        double medianA = median(Arrays.copyOf(a, count));
        double medianB = median(Arrays.copyOf(b, count));
        double medianDiff = median(diff);
        double meanA = sumA / count;
        double perStep = medianDiff / bSteps;
        System.out.printf("%n[paired] workers=%s, %d pairs: %s median %.0f ns, mean %.0f ns; %s median %.0f ns, mean %.0f ns;"
                        + " median of (b - a) %.0f ns = %.1f ns per step = %.2f %% of a's mean, %.2f %% of a's median;"
                        + " (b - a) / (mean a + (b - a)) = %.1f %%%n",
                params.getParam("workers"), count, aName, medianA, meanA, bName, medianB, sumB / count,
                medianDiff, perStep, 100 * perStep / meanA, 100 * perStep / medianA, 100 * medianDiff / (meanA + medianDiff));
        count = 0;
    }

    private static double median(long[] v) {
        Arrays.sort(v);
        return v.length == 0 ? Double.NaN : v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2.0;
    }
}
