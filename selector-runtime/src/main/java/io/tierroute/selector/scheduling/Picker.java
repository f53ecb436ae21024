package io.tierroute.selector.scheduling;

import java.util.random.RandomGenerator;

/**
 * Chooses among scored candidates: argmin with uniformly random ties when the temperature is 0,
 * else a softmax over min-max normalised costs ({@code P(w) ∝ exp(−c'(w)/T)}, as Dynamo does), plus
 * an optional ε share of uniform picks that keeps the fitter seeing the options the router avoids
 * (DESIGN.md §5, identifiability).
 */
public final class Picker {

    private final double temperature;
    private final double epsilon;

    public Picker(double temperature, double epsilon) {
        if (!(temperature >= 0 && Double.isFinite(temperature))) {
            throw new IllegalArgumentException("temperature must be a finite number ≥ 0, got " + temperature);
        }
        if (!(epsilon >= 0 && epsilon <= 1)) {
            throw new IllegalArgumentException("exploration epsilon must be in [0, 1], got " + epsilon);
        }
        this.temperature = temperature;
        this.epsilon = epsilon;
    }

    /**
     * Picks one of the candidates whose {@code eligible[w]} is true.
     *
     * @return the chosen worker, or -1 when none is eligible
     */
    public int pick(double[] cost, boolean[] eligible, int workers, RandomGenerator random) {
        int count = 0;
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (int w = 0; w < workers; w++) {
            if (eligible[w]) {
                count++;
                min = Math.min(min, cost[w]);
                max = Math.max(max, cost[w]);
            }
        }
        if (count == 0) {
            return -1;
        }
        if (epsilon > 0 && random.nextDouble() < epsilon) {
            return nthEligible(eligible, workers, random.nextInt(count));
        }
        if (temperature == 0 || max == min) {
            return argminRandomTies(cost, eligible, workers, min, random);
        }
        return softmax(cost, eligible, workers, min, max - min, random);
    }

    /** True when {@code worker} was not the argmin, i.e. the pick explored. */
    public static boolean explored(double[] cost, boolean[] eligible, int workers, int worker) {
        for (int w = 0; w < workers; w++) {
            if (eligible[w] && cost[w] < cost[worker]) {
                return true;
            }
        }
        return false;
    }

    private static int argminRandomTies(double[] cost, boolean[] eligible, int workers, double min,
                                        RandomGenerator random) {
        // Reservoir sampling over the tied minimum: uniform without a second array.
        int chosen = -1;
        int seen = 0;
        for (int w = 0; w < workers; w++) {
            if (eligible[w] && cost[w] == min) {
                seen++;
                if (random.nextInt(seen) == 0) {
                    chosen = w;
                }
            }
        }
        return chosen;
    }

    private int softmax(double[] cost, boolean[] eligible, int workers, double min, double range,
                        RandomGenerator random) {
        double sum = 0;
        for (int w = 0; w < workers; w++) {
            if (eligible[w]) {
                sum += Math.exp(-((cost[w] - min) / range) / temperature);
            }
        }
        double target = random.nextDouble() * sum;
        int last = -1;
        for (int w = 0; w < workers; w++) {
            if (eligible[w]) {
                target -= Math.exp(-((cost[w] - min) / range) / temperature);
                last = w;
                if (target <= 0) {
                    return w;
                }
            }
        }
        return last; // rounding left a sliver: the last eligible candidate takes it
    }

    private static int nthEligible(boolean[] eligible, int workers, int n) {
        for (int w = 0; w < workers; w++) {
            if (eligible[w] && n-- == 0) {
                return w;
            }
        }
        throw new IllegalStateException("fewer eligible candidates than counted");
    }
}
