package io.tierroute.fitter.decay;

/**
 * Weighted idle times of misses in log-spaced bins: per bin the total weight W_b and the weighted sum of
 * t, so each bin is represented by its exact weighted mean time t̄_b. Memory is fixed (2 arrays of
 * #bins doubles, allocated on the first miss). Replacing every t in a bin by t̄_b changes the
 * log-likelihood term log(1 − e^{−λt}) only at second order in the bin width (README §4).
 */
final class MissHistogram {
    private final DecayConfig config;
    private final double logTMin;
    private final double logRatio;
    private final int bins;
    private double[] weight;
    private double[] weightedT;

    MissHistogram(DecayConfig config) {
        this.config = config;
        this.logTMin = Math.log(config.tMinSeconds());
        this.logRatio = Math.log(config.binRatio());
        this.bins = (int) Math.ceil(Math.log(config.tMaxSeconds() / config.tMinSeconds()) / logRatio) + 2;
    }

    int bin(double t) {
        if (t < config.tMinSeconds()) {
            return 0;
        }
        int b = 1 + (int) Math.floor((Math.log(t) - logTMin) / logRatio);
        return Math.min(b, bins - 1);
    }

    void add(double t, double w) {
        if (weight == null) {
            weight = new double[bins];
            weightedT = new double[bins];
        }
        int b = bin(t);
        weight[b] += w;
        weightedT[b] += w * t;
    }

    /** Adds {@code other}'s bins with their weights multiplied by {@code f}. */
    void mergeScaled(MissHistogram other, double f) {
        if (other.weight == null) {
            return;
        }
        for (int b = 0; b < bins; b++) {
            if (other.weight[b] > 0) {
                if (weight == null) {
                    weight = new double[bins];
                    weightedT = new double[bins];
                }
                weight[b] += other.weight[b] * f;
                weightedT[b] += other.weightedT[b] * f;
            }
        }
    }

    /** Multiplies every bin's weight by {@code f} (its mean time stays). */
    void scale(double f) {
        if (weight == null) {
            return;
        }
        for (int b = 0; b < bins; b++) {
            weight[b] *= f;
            weightedT[b] *= f;
        }
    }

    /** Calls the consumer with (W_b, t̄_b) for every non-empty bin. */
    void forEach(BinConsumer consumer) {
        if (weight == null) {
            return;
        }
        for (int b = 0; b < bins; b++) {
            if (weight[b] > 0) {
                consumer.accept(weight[b], weightedT[b] / weight[b]);
            }
        }
    }

    @FunctionalInterface
    interface BinConsumer {
        void accept(double weight, double meanT);
    }
}
