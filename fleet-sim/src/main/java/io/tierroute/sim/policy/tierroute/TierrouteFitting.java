package io.tierroute.sim.policy.tierroute;

import io.tierroute.fitter.decay.DecayAccumulator;
import io.tierroute.fitter.decay.DecayConfig;
import io.tierroute.fitter.decay.DecayFit;
import io.tierroute.fitter.decay.DecayObservation;
import io.tierroute.fitter.kvwait.KvWaitFit;
import io.tierroute.fitter.kvwait.KvWaitFitter;
import io.tierroute.fitter.kvwait.KvWaitRow;
import io.tierroute.fitter.regression.Coefficient;
import io.tierroute.fitter.regression.LatencyFit;
import io.tierroute.fitter.regression.LatencyObservation;
import io.tierroute.fitter.regression.LatencyRegression;
import io.tierroute.fitter.regression.RegressionConfig;
import io.tierroute.fitter.snapshot.FitResults;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.scheduling.CostBreakdown;
import io.tierroute.sim.policy.Completion;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Fits the cost model's coefficients from a warm-up run, as the streaming jobs would: each completion
 * log joined with the decision that routed it gives one {@link LatencyObservation} (the chosen
 * worker's cost features → the realised TTFT), fed in completion order to the fitter's
 * {@link LatencyRegression} (with an intercept: the per-step overhead is common to all workers). A
 * coefficient whose regressor never varied (infinite standard error) keeps its default, but for a quadratic the fit
 * left out beside its fitted linear partner, which is 0. {@code α_own}
 * ({@code C_own}) is fitted separately ({@link #fitOwnDecode}) and reported in the parameter set's source,
 * but not applied (see the comment where the parameters are built). The admission wait's {@code τ₀}, {@code α} and
 * {@code k} come from the fitter's {@link KvWaitFitter} on the same joined rows, as the streaming job fits them; λ from the
 * fitter's {@link DecayAccumulator} on every warm-up step with a previous one (its previous worker held the context or
 * not, wherever the step went), as the job takes it from the decision records.
 * {@link #fit} applies the fit as it is; {@link #fitRound} gives it to {@link WarmUpGate}, the production path.
 */
public final class TierrouteFitting {

    private TierrouteFitting() {}

    /** The fewest joined completions a warm-up round is fitted on; under it the round gives no fit. */
    static final int MIN_COMPLETIONS = 64;

    /** One round's fit applied as it is; the defaults when the round had too few completions ({@code fitted} null). */
    static ParameterSet fit(Fitted fitted, int workers) {
        if (fitted == null) {
            return ParameterSet.defaults(workers);
        }
        LatencyFit fit = fitted.results().latency();
        OwnDecodeFit own = fitted.own();
        KvWaitFit wait = fitted.results().kvWait();
        CostParameters p = CostParameters.DEFAULTS.toBuilder()
                .alphaP(pick(fit, Coefficient.ALPHA_P, CostParameters.DEFAULTS.alphaP()))
                .alphaP2(pickQuadratic(fit, Coefficient.ALPHA_P2, CostParameters.DEFAULTS.alphaP2()))
                .alphaD(pick(fit, Coefficient.ALPHA_D, CostParameters.DEFAULTS.alphaD()))
                .alphaD2(pickQuadratic(fit, Coefficient.ALPHA_D2, CostParameters.DEFAULTS.alphaD2()))
                .alphaT(pick(fit, Coefficient.ALPHA_T, CostParameters.DEFAULTS.alphaT()))
                .alphaHo(pick(fit, Coefficient.ALPHA_HO, CostParameters.DEFAULTS.alphaHo()))
                .qSlack(fit.qSlackValue())
                .alphaWf(pick(fit, Coefficient.ALPHA_WF, CostParameters.DEFAULTS.alphaWf()))
                .alphaWf2(pick(fit, Coefficient.ALPHA_WF2, CostParameters.DEFAULTS.alphaWf2()))
                .lambda(pickLambda(fitted.results().decay(), CostParameters.DEFAULTS.lambda()))
                // α_own is fitted and reported but not applied: every way of pricing C_own measured so far (the fit
                // as is, halved, quartered, gated on t ≥ 3 and R² ≥ 0.05) lost TTFT or JCT somewhere (agentic 2:
                // JCT 24 % worse with an R² = 0.62 fit); fleet-sim/experiments/ROUNDS.md "Earlier round: C_own".
                .alphaOwn(0.0)
                .decodeStepUs(wait.tau0Us())
                .decodeStepKvUs(wait.perKvTokenUs())
                .kvWaitScale(wait.scale())
                .build();
        return ParameterSet.builder(workers).version(1).source(String.format(java.util.Locale.ROOT,
                "fitted on %d warm-up completions (R²=%.2f): α_p=%.3g α_p2=%.3g α_d=%.3g α_d2=%.3g α_t=%.3g α_ho=%.3g "
                        + "Q_slack=%.0f α_wf=%.3g α_wf2=%.3g λ=%.3g α_own fitted %.3g, not applied (τ₀=%.0f µs, n=%d, R²=%.3f, t=%.1f)",
                fit.samples(), fit.r2(), p.alphaP(), p.alphaP2(), p.alphaD(), p.alphaD2(), p.alphaT(), p.alphaHo(), p.qSlack(),
                p.alphaWf(), p.alphaWf2(), p.lambda(), own.alphaOwn(), own.tau0(), own.samples(), own.r2(), own.t())
                + waitNote(wait)).cost(p).build();
    }

    /**
     * One warm-up's estimator results, as the streaming job hands them to the snapshot assembler (the latency
     * regression and the admission wait), with {@code α_own}'s fit, which the snapshot does not carry.
     */
    record Fitted(FitResults results, OwnDecodeFit own) {
        /** What was fitted on, for a parameter set's source. */
        String describe() {
            return String.format(java.util.Locale.ROOT, "fitted on %d warm-up completions (R²=%.2f)",
                    results.latency().samples(), results.latency().r2());
        }
    }

    /**
     * One warm-up round: its fit, or null when fewer than {@link #MIN_COMPLETIONS} completions joined with their
     * decision were accepted to fit on; {@code completions} is how many were (a decision that cut a tier off is none).
     */
    record Round(Fitted fitted, long completions) {}

    /**
     * The estimators' results on a warm-up's joined decisions and completions ({@link Round}), and λ's on its steps
     * with a previous one ({@code decay}; none fitted under {@link #MIN_COMPLETIONS} of them).
     */
    static Round fitRound(Map<String, CostBreakdown> decisions, List<Completion> log, List<DecayObservation> decay) {
        LatencyRegression reg = new LatencyRegression(RegressionConfig.defaults().withForgetting(1.0).withIntercept(true));
        List<Completion> ordered = log.stream().sorted(Comparator.comparingLong(Completion::finishMicros)).toList();
        for (Completion c : ordered) {
            CostBreakdown d = decisions.get(c.request().id());
            if (d == null || d.cutOffTier() >= 0) {
                continue; // a cut-off tier's prefix was loaded anyway: p_eff is not what the engine computed (as the job)
            }
            reg.update(observation(d, c));
        }
        if (reg.samples() < MIN_COMPLETIONS) {
            return new Round(null, reg.samples());
        }
        LatencyFit fit = reg.fit();
        KvWaitFit wait = KvWaitFitter.fit(kvWaitRows(decisions, ordered));
        return new Round(new Fitted(new FitResults(fit, Map.of(), Map.of(), fitDecay(decay), null, wait),
                fitOwnDecode(decisions, ordered)), reg.samples());
    }

    /** λ's maximum-likelihood fit on {@code observations}, or null under {@link #MIN_COMPLETIONS} of them. */
    static DecayFit fitDecay(List<DecayObservation> observations) {
        if (observations.size() < MIN_COMPLETIONS) {
            return null;
        }
        DecayAccumulator acc = new DecayAccumulator(DecayConfig.defaults());
        observations.forEach(acc::add);
        return acc.fit();
    }

    /**
     * A fitted λ strictly inside its bounds, else {@code fallback}: at the lower bound no context was seen to go (every
     * step found it, or none was observed), which says λ is small, not how small, and at the upper one every context
     * had gone after any idle time.
     */
    static double pickLambda(DecayFit decay, double fallback) {
        return decay == null || decay.atLowerBound() || decay.atUpperBound() ? fallback : decay.lambda().value();
    }

    /** {@code α_own} with its intercept {@code τ₀} and fit quality. */
    record OwnDecodeFit(double alphaOwn, double tau0, int samples, double r2, double t) {}

    /** Smallest t statistic at which the fitted {@code α_own} is used (below it: 0, no own-decode term). */
    static final double MIN_T = 3.0;
    /**
     * Smallest share of the decode time per predicted token that {@code KV_used} must explain for {@code α_own}
     * to be used. Below it the slope is real but {@code d̂·KV_used} does not predict r's decode time (other
     * requests' prefill chunks and later arrivals dominate it), and pricing it measurably traded TTFT and JCT
     * away on Mooncake (fleet-sim/experiments/ROUNDS.md, "Earlier round: C_own").
     */
    static final double MIN_R2 = 0.05;

    /**
     * {@code α_own} of {@code C_own = α_own·d̂(r)·KV_used(w)}: ordinary least squares of the realised decode
     * time per predicted output token ({@code decode_time / d̂(r)}) on {@code KV_used(w)} at decision time,
     * {@code decode_time/d̂ = τ₀ + α_own·KV_used}. Dividing by the prediction (not the realised length)
     * keeps C_own in units of realised time when {@code d̂} is biased (e.g. {@code max_tokens/2}). A negative,
     * unidentifiable ({@code t < 3}) or immaterial ({@code R² < 0.05}) slope gives 0 (no term).
     */
    static OwnDecodeFit fitOwnDecode(Map<String, CostBreakdown> decisions, List<Completion> log) {
        double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
        for (Completion c : log) {
            CostBreakdown d = decisions.get(c.request().id());
            if (d == null || c.outputTokens() < 2 || d.ownDecodeKvTokenSteps() <= 0 || d.kvUsedTokens() <= 0) {
                continue;
            }
            io.tierroute.sim.policy.SimRequest.Agent a = c.request().agent();
            double dHat = a != null && a.expectedOutputTokens() != null ? a.expectedOutputTokens()
                    : Math.max(1, c.request().maxTokens() / 2); // d̂ as the selector predicts it without a forest
            double x = d.ownDecodeKvTokenSteps() / dHat;
            double y = c.decodeMicros() / dHat;
            n++; sx += x; sy += y; sxx += x * x; sxy += x * y; syy += y * y;
        }
        if (n < 64) {
            return new OwnDecodeFit(0, 0, (int) n, 0, 0);
        }
        double vx = sxx - sx * sx / n, vy = syy - sy * sy / n, cxy = sxy - sx * sy / n;
        if (!(vx > 0) || !(vy > 0)) {
            return new OwnDecodeFit(0, 0, (int) n, 0, 0);
        }
        double slope = cxy / vx;
        double tau0 = (sy - slope * sx) / n;
        double r2 = cxy * cxy / (vx * vy);
        // t statistic of the slope; a slope not distinguishable from 0 (t < 3) or that explains little of the
        // decode time (R² < 0.05) is not charged.
        double t = Math.sqrt(r2 * (n - 2) / Math.max(1e-12, 1 - r2));
        boolean use = Double.isFinite(slope) && slope > 0 && t >= MIN_T && r2 >= MIN_R2;
        return new OwnDecodeFit(use ? slope : 0, tau0, (int) n, r2, t);
    }

    /** The admission wait's fit as the source line reports it. */
    static String waitNote(KvWaitFit w) {
        return String.format(java.util.Locale.ROOT, "; admission wait τ₀=%.0f µs α=%.3g k=%.3f (decode rows %d, R²=%.3f; "
                + "rows with W > 0 %d, unclamped k %.3f)", w.tau0Us(), w.perKvTokenUs(), w.scale(), w.decodeRows(),
                w.decodeR2(), w.waitRows(), w.unclampedScale())
                + (w.skippedRows() > 0 ? "; " + w.skippedRows() + " unusable rows left out" : "");
    }

    /**
     * Each completion joined with its decision as the admission wait's fit reads it. {@code d̂(r)} is recovered from
     * the decision ({@code ownDecodeKvTokenSteps = d̂·KV_used}; rows with no KV resident say nothing about a decode
     * step, the fitter skips them); the KV r misses is its overflow less its prefix held in HBM there.
     */
    static List<KvWaitRow> kvWaitRows(Map<String, CostBreakdown> decisions, List<Completion> log) {
        List<KvWaitRow> rows = new ArrayList<>();
        for (Completion c : log) {
            CostBreakdown d = decisions.get(c.request().id());
            if (d == null) {
                continue;
            }
            double dHat = d.kvUsedTokens() > 0 ? d.ownDecodeKvTokenSteps() / d.kvUsedTokens() : 0.0;
            double missing = Math.max(0.0, d.kvOverflowTokens() - d.tierTokens()[Tier.HBM.ordinal()]);
            rows.add(new KvWaitRow(c.finishMicros() / 1000, d.kvUsedTokens(), dHat, missing, d.inflightDecodeTokens(),
                    d.inFlight(), d.prefillUs(), d.queueUs(), c.outputTokens(), c.decodeMicros(), c.engineQueueWaitMicros(),
                    c.prefillMicros()));
        }
        return rows;
    }

    static LatencyObservation observation(CostBreakdown d, Completion c) {
        double tierUs = 0;
        for (int t = 0; t < Tier.COUNT; t++) {
            if (t != Tier.HBM.ordinal()) {
                tierUs += d.tierTransferUs()[t];
            }
        }
        // C_queue and C_kv are both priced at α_p: their tokens join the α_p regressor (the fitter's
        // kvOverflowTokens column is added to p_eff), so the queue wait is not attributed to Σd̂.
        // The engine's TTFT, as its completion log gives it: a hold at the router (late binding) is explained by no
        // term of the worker it was bound to.
        return new LatencyObservation(c.finishMicros() / 1000, c.engineTtftMicros(), d.pEffTokens(),
                d.kvOverflowTokens() + d.queuedPrefillTokens(),
                d.recomputeQuadratic(), d.inflightDecodeTokens(), d.inflightDecodeQuadratic(), tierUs, d.queueLength(),
                d.affinityDecay(), d.toolHitFraction());
    }

    /**
     * A quadratic the fit left out (0 on its rows with an infinite standard error) beside a fitted linear partner is 0,
     * not its default: the partner was fitted without it and carries its share, as the validation gate applies it.
     */
    static double pickQuadratic(LatencyFit fit, Coefficient quadratic, double fallback) {
        boolean leftOut = fit.get(quadratic).leftOutOfTheFit();
        boolean linearFitted = !Double.isNaN(pick(fit, quadratic.linearPartner(), Double.NaN));
        return leftOut && linearFitted ? 0.0 : pick(fit, quadratic, fallback);
    }

    private static double pick(LatencyFit fit, Coefficient c, double fallback) {
        double v = fit.value(c);
        return fit.get(c).hasFiniteStdError() && Double.isFinite(v) && v >= 0 ? v : fallback;
    }
}
