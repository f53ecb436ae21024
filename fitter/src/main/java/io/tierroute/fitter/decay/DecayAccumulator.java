package io.tierroute.fitter.decay;

import io.tierroute.fitter.Estimate;
import io.tierroute.fitter.EventWindow;
import io.tierroute.fitter.QualityKind;
import java.util.OptionalDouble;

/**
 * Sufficient statistics of the λ likelihood for one (scope, pressure bucket), kept incrementally, and
 * the maximum-likelihood fit on them. The survival terms (hits, right-censored, exact lifetimes) are
 * linear in λ apart from log λ, so they reduce to two numbers: the exposure S = Σ w·t and the event
 * weight d; the miss terms log(1 − e^{−λt}) have no finite sufficient statistic and go into a
 * {@link MissHistogram}. The log-likelihood is
 * <pre>  ℓ(λ) = d·log λ − λ·S + Σ_b W_b·log(1 − e^{−λ t̄_b})  </pre>
 * which is strictly concave when d > 0 or some W_b > 0, so the maximiser is unique. Not thread-safe.
 *
 * <p>Forgetting ({@link DecayConfig#forgetting()} λ_f &lt; 1): each accepted observation weighs 1/λ_f times the one
 * before, so the k-th newest counts λ_f^k of the newest. The sums are kept at that growing scale ({@code gain}, the
 * newest observation's multiplier: no pass over the histogram per observation) and brought back to 1 now and then.
 * Scaling every weight by one constant leaves the maximiser where it is; the information, hence the standard error,
 * is read at the newest observation's weight 1.
 */
public final class DecayAccumulator {
    private final DecayConfig config;
    private final MissHistogram misses;
    private final EventWindow window = new EventWindow();
    private double exposure;
    private double events;
    private double missWeight;
    private long observations;
    /** The weight multiplier of the newest observation; the sums are at this scale (see the class comment). */
    private double gain = 1.0;
    private static final double RENORMALIZE_ABOVE = 1e100;

    public DecayAccumulator(DecayConfig config) {
        this.config = config;
        this.misses = new MissHistogram(config);
    }

    public DecayOutcome add(DecayObservation o) {
        DecayOutcome check = o.check();
        if (check != DecayOutcome.ACCEPTED) {
            return check;
        }
        double t = o.idleSeconds();
        advance();
        double w = o.weight() * gain;
        switch (o.kind()) {
            case RETURN_HIT, STILL_CACHED_AT -> exposure += w * t;
            case EVICTED_AT -> {
                exposure += w * t;
                events += w;
            }
            case RETURN_MISS -> addMiss(t, w);
            case RETURN_FRACTION -> {
                exposure += w * o.fraction() * t;
                if (o.fraction() < 1) {
                    addMiss(t, w * (1 - o.fraction()));
                }
            }
            default -> throw new IllegalStateException("unknown kind " + o.kind());
        }
        observations++;
        window.observe(o.eventTimeMs());
        return DecayOutcome.ACCEPTED;
    }

    /** One more observation: the weight of those before it falls by λ_f relative to it. */
    private void advance() {
        if (config.forgetting() == 1.0) {
            return;
        }
        gain /= config.forgetting();
        if (gain > RENORMALIZE_ABOVE) {
            rescale(1 / gain);
            gain = 1.0;
        }
    }

    private void rescale(double f) {
        exposure *= f;
        events *= f;
        missWeight *= f;
        misses.scale(f);
    }

    private void addMiss(double t, double w) {
        misses.add(t, w);
        missWeight += w;
    }

    /** Adds another accumulator's statistics (same config), e.g. to pool pressure buckets. */
    public void merge(DecayAccumulator other) {
        // Both at weight 1 for their newest observation: bring this one there, add the other's at its own scale.
        rescale(1 / gain);
        gain = 1.0;
        double f = 1 / other.gain;
        exposure += other.exposure * f;
        events += other.events * f;
        missWeight += other.missWeight * f;
        observations += other.observations;
        misses.mergeScaled(other.misses, f);
        window.merge(other.window);
    }

    public long observations() {
        return observations;
    }

    /** Score ℓ'(λ) = d/λ − S + Σ W_b t̄_b / (e^{λ t̄_b} − 1). */
    double score(double lambda) {
        double[] s = {events / lambda - exposure};
        misses.forEach((w, t) -> s[0] += w * t / Math.expm1(lambda * t));
        return s[0];
    }

    /** Observed information −ℓ''(λ) = d/λ² + Σ W_b t̄_b² / (4 sinh²(λ t̄_b / 2)). */
    double information(double lambda) {
        double[] s = {events / (lambda * lambda)};
        misses.forEach((w, t) -> {
            double sh = Math.sinh(lambda * t / 2);
            double term = w * t * t / (4 * sh * sh);
            if (Double.isFinite(term)) {
                s[0] += term;
            }
        });
        return s[0];
    }

    /** Log-likelihood ℓ(λ) (for tests and diagnostics). */
    double logLikelihood(double lambda) {
        double[] s = {(events > 0 ? events * Math.log(lambda) : 0) - lambda * exposure};
        misses.forEach((w, t) -> s[0] += w * Math.log(-Math.expm1(-lambda * t)));
        return s[0];
    }

    /**
     * The MLE of λ within [lambdaMin, lambdaMax]: safeguarded Newton on the score (which is decreasing
     * because ℓ is concave) inside a shrinking bracket, with a geometric bisection step whenever Newton
     * leaves the bracket or stalls. Boundary solutions are reported as such.
     */
    public DecayFit fit() {
        double lo = config.lambdaMin();
        double hi = config.lambdaMax();
        double lambda;
        boolean atLower = false;
        boolean atUpper = false;
        int iterations = 0;
        if (observations == 0 || (events == 0 && missWeight == 0)) {
            lambda = lo;
            atLower = true;
        } else if (score(lo) <= 0) {
            lambda = lo;
            atLower = true;
        } else if (score(hi) >= 0) {
            lambda = hi;
            atUpper = true;
        } else {
            double guess = (events + missWeight) / Math.max(exposure + 1e-300, 1e-300);
            lambda = Math.max(lo, Math.min(hi, Double.isFinite(guess) ? guess : Math.sqrt(lo * hi)));
            for (iterations = 1; iterations <= 200; iterations++) {
                double s = score(lambda);
                if (s > 0) {
                    lo = lambda;
                } else if (s < 0) {
                    hi = lambda;
                } else {
                    break;
                }
                double info = information(lambda);
                double next = lambda + s / info;
                if (!(next > lo && next < hi) || !Double.isFinite(next)) {
                    next = Math.sqrt(lo * hi);
                }
                double step = Math.abs(next - lambda);
                lambda = next;
                if (step <= 1e-13 * lambda || hi / lo - 1 < 1e-13) {
                    break;
                }
            }
        }
        double info = information(lambda) / gain; // at the newest observation's weight 1
        double se = info > 0 && Double.isFinite(info) ? 1 / Math.sqrt(info) : Double.POSITIVE_INFINITY;
        double quality = Double.isFinite(se) ? se : Double.MAX_VALUE;
        Estimate estimate = new Estimate(lambda, OptionalDouble.of(se), observations, quality, QualityKind.STD_ERROR,
            window.startMs(), window.endExclusiveMs());
        return new DecayFit(estimate, atLower, atUpper, iterations, events / gain, exposure / gain, missWeight / gain);
    }
}
