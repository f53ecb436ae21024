package io.tierroute.fitter.kvwait;

import io.tierroute.fitter.EventWindow;
import io.tierroute.schemas.snapshot.SnapshotParameter;
import java.util.List;

/**
 * Fits {@code τ₀}, {@code α} and {@code k} of the admission wait (fleet-sim/experiments/ROUNDS.md, "Admission-wait
 * round") from completed requests, in two passes:
 * <ol>
 * <li>the decode step: ordinary least squares of the realised decode time per predicted output token,
 *     {@code decodeUs / d̂}, on the KV resident at decision, over requests with at least two output tokens and some KV
 *     resident; a falling slope is no slope ({@code α = 0}, {@code τ₀} the mean); α is fitted within the gate's bound
 *     ({@link #MAX_ALPHA}), and one that ends at the bound has an error of +∞, which the gate holds; a negative
 *     intercept, the line through the origin ({@code τ₀ = 0}). Per <em>predicted</em> token, so a biased {@code d̂}
 *     (e.g. {@code max_tokens / 2}) is absorbed where {@code W} multiplies it again. At least
 *     {@link #MIN_DECODE_ROWS} rows, else no wait term at all;</li>
 * <li>the scale: least squares through the origin, over requests whose chosen worker had {@code W > 0}, of the
 *     wait they realised beyond {@code C_prefill + C_queue} <em>and beyond the mean of that excess among requests
 *     with {@code W = 0}</em> (the control: where the whole fleet queues, every request waits longer than predicted,
 *     and only what the overflowing ones waited on top is the wait for HBM), on {@code W}; clamped to [0, 1]
 *     ({@code W} assumes every in-flight request holds an equal share of the KV and frees it at its mean pace; where
 *     engines preempt instead of waiting it over-estimates); 1 with fewer than {@link #MIN_WAIT_ROWS} such rows.
 *     Without the control, k fitted at saturation took the fleet's queueing for HBM wait (agentic-pcie 1.25: 2.2
 *     before the clamp) and the wait term drove requests from the holders of their contexts
 *     (fleet-sim/experiments/ROUNDS.md, "Admission-wait round").</li>
 * </ol>
 * Rows that are not usable ({@link KvWaitRow#usable()}: a figure not finite, negative or beyond its cap) are left out
 * of both passes and counted ({@link KvWaitFit#skippedRows()}); the decode step also leaves out a {@code d̂} below one
 * token and a decode time per predicted token beyond τ₀'s bound ({@link KvWaitRow#decodeTimePastTauZerosBound()}: a
 * share of such rows put the mean, and so τ₀, past it, where the gate rejected every snapshot of the scope; left out,
 * every row is within it, so τ₀, at most the mean, is too).
 */
public final class KvWaitFitter {

    /** Rows the decode-step regression needs. */
    public static final int MIN_DECODE_ROWS = 64;
    /** Rows with {@code W > 0} the scale needs. */
    public static final int MIN_WAIT_ROWS = 16;
    /** The most α fits at: its bound in the gate ({@link SnapshotParameter#DECODE_STEP_KV_US}, 10 µs per KV token). */
    static final double MAX_ALPHA = SnapshotParameter.DECODE_STEP_KV_US.upper();

    private KvWaitFitter() {}

    public static KvWaitFit fit(List<KvWaitRow> given) {
        List<KvWaitRow> rows = new java.util.ArrayList<>(given.size());
        for (KvWaitRow r : given) {
            if (r.usable()) {
                rows.add(r);
            }
        }
        int skipped = given.size() - rows.size();
        EventWindow window = new EventWindow();
        double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
        for (KvWaitRow r : rows) {
            if (!usableForDecodeStep(r)) {
                continue;
            }
            double x = r.kvUsedTokens();
            double y = r.decodeUs() / r.predictedOutputTokens();
            n++; sx += x; sy += y; sxx += x * x; sxy += x * y; syy += y * y;
            window.observe(r.eventTimeMs());
        }
        double vx = sxx - sx * sx / n;
        double vy = syy - sy * sy / n;
        if (n < MIN_DECODE_ROWS || !(vx > 0) || !(vy > 0)) {
            return KvWaitFit.none(skipped);
        }
        double cxy = sxy - sx * sy / n;
        double slope = cxy / vx;
        boolean rising = Double.isFinite(slope) && slope > 0;
        double alpha = rising ? slope : 0.0;
        double meanX = sx / n;
        double tau0 = rising ? (sy - slope * sx) / n : sy / n;
        double r2 = rising ? cxy * cxy / (vx * vy) : 0.0;
        // OLS standard errors (residual variance over n − 2); with no slope, the mean's.
        double residual = Math.max(0.0, rising ? vy - slope * cxy : vy);
        double s2 = residual / (n - 2);
        double alphaSe = Math.sqrt(s2 / vx);
        double tau0Se = rising ? Math.sqrt(s2 * (1.0 / n + meanX * meanX / vx)) : Math.sqrt(vy / (n - 1) / n);
        if (alpha > MAX_ALPHA) {
            // Past the gate's bound the slope would reject every snapshot of the scope (a few 1-token hints at low KV
            // put it at 34): it stops at the bound with the intercept fitted beside it. The bound is no measurement of
            // α (it would make W 200 times that of a 0.05 in force), so α's error is +∞: the gate holds it, and with
            // it τ₀ and k, at the values in force. τ₀ keeps its unconstrained standard error.
            alpha = MAX_ALPHA;
            alphaSe = Double.POSITIVE_INFINITY;
            tau0 = (sy - alpha * sx) / n;
            r2 = Math.max(0.0, 1.0 - Math.max(0.0, vy - 2 * alpha * cxy + alpha * alpha * vx) / vy);
        }
        if (tau0 < 0) {
            // A step cannot take negative time: fit the line through the origin (τ₀ = 0) rather than clamp τ₀ and
            // keep a slope fitted beside the negative intercept, which priced every step too high.
            // τ₀ keeps the unconstrained intercept's standard error (it was not estimated at 0: bounded there), so the
            // gate does not take 0 for a precise value; α's is conditional on τ₀ = 0. α stops at its bound here too
            // (its error then +∞, as above).
            double leastSquares = sxy / sxx;
            alpha = Math.min(leastSquares, MAX_ALPHA);
            tau0 = 0.0;
            double through = Math.max(0.0, alpha == leastSquares ? syy - alpha * sxy // Σ(y − αx)² at the LS α
                : syy - 2 * alpha * sxy + alpha * alpha * sxx); // and at the bound
            alphaSe = alpha == leastSquares ? Math.sqrt(through / (n - 1) / sxx) : Double.POSITIVE_INFINITY;
            r2 = Math.max(0.0, 1.0 - through / vy);
        }

        // The control: what requests that found their KV free waited beyond C_prefill + C_queue anyway (queues
        // behind in-flight prefill chunks, loads; where the fleet saturates, most of the excess).
        double controls = 0, controlWait = 0;
        for (KvWaitRow r : rows) {
            double w = AdmissionWait.micros(r.missingKvTokens(), r.kvUsedTokens(), r.inflightDecodeTokens(),
                    r.inFlight(), tau0, alpha);
            if (w == 0.0) {
                controls++;
                controlWait += r.excessWaitUs();
            }
        }
        double baseline = controls > 0 ? controlWait / controls : 0.0;
        double m = 0, swy = 0, sww = 0, syy2 = 0;
        for (KvWaitRow r : rows) {
            double w = AdmissionWait.micros(r.missingKvTokens(), r.kvUsedTokens(), r.inflightDecodeTokens(),
                    r.inFlight(), tau0, alpha);
            if (!(w > 0) || !Double.isFinite(w)) {
                continue;
            }
            double y = r.excessWaitUs() - baseline;
            m++; swy += w * y; sww += w * w; syy2 += y * y;
        }
        double ls = sww > 0 ? swy / sww : Double.NaN;
        boolean scaled = m >= MIN_WAIT_ROWS && sww > 0;
        double k = scaled ? Math.max(0.0, Math.min(1.0, ls)) : 1.0;
        double kSe = scaled ? Math.sqrt(Math.max(0.0, syy2 - 2 * ls * swy + ls * ls * sww) / (m - 1) / sww) : Double.NaN;
        return new KvWaitFit(tau0, tau0Se, alpha, alphaSe, k, kSe, (int) n, r2, (int) m, ls, window.startMs(),
                window.endExclusiveMs(), skipped);
    }

    /** A decode time per predicted token needs a prediction of one token or more (a d̂ near 0 would rule the fit). */
    private static boolean usableForDecodeStep(KvWaitRow r) {
        return r.outputTokens() >= 2 && r.kvUsedTokens() > 0 && r.predictedOutputTokens() >= 1
            && !r.decodeTimePastTauZerosBound();
    }
}
