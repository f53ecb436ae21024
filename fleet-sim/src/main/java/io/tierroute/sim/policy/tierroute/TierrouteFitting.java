package io.tierroute.sim.policy.tierroute;

import io.tierroute.fitter.regression.Coefficient;
import io.tierroute.fitter.regression.LatencyFit;
import io.tierroute.fitter.regression.LatencyObservation;
import io.tierroute.fitter.regression.LatencyRegression;
import io.tierroute.fitter.regression.RegressionConfig;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.scheduling.CostBreakdown;
import io.tierroute.sim.policy.Completion;

import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Fits the cost model's coefficients from a warm-up run, as the streaming jobs would: each completion
 * log joined with the decision that routed it gives one {@link LatencyObservation} (the chosen
 * worker's cost features → the realised TTFT), fed in completion order to the fitter's
 * {@link LatencyRegression} (with an intercept: the per-step overhead is common to all workers). A
 * coefficient whose regressor never varied (infinite standard error) keeps its default.
 */
public final class TierrouteFitting {

    private TierrouteFitting() {}

    public static ParameterSet fit(Map<String, CostBreakdown> decisions, List<Completion> log, int workers) {
        LatencyRegression reg = new LatencyRegression(RegressionConfig.defaults().withForgetting(1.0).withIntercept(true));
        List<Completion> ordered = log.stream().sorted(Comparator.comparingLong(Completion::finishMicros)).toList();
        for (Completion c : ordered) {
            CostBreakdown d = decisions.get(c.request().id());
            if (d == null) {
                continue;
            }
            reg.update(observation(d, c));
        }
        if (reg.samples() < 64) {
            return ParameterSet.defaults(workers);
        }
        LatencyFit fit = reg.fit();
        CostParameters p = CostParameters.DEFAULTS.toBuilder()
                .alphaP(pick(fit, Coefficient.ALPHA_P, CostParameters.DEFAULTS.alphaP()))
                .alphaP2(pick(fit, Coefficient.ALPHA_P2, CostParameters.DEFAULTS.alphaP2()))
                .alphaD(pick(fit, Coefficient.ALPHA_D, CostParameters.DEFAULTS.alphaD()))
                .alphaD2(pick(fit, Coefficient.ALPHA_D2, CostParameters.DEFAULTS.alphaD2()))
                .alphaT(pick(fit, Coefficient.ALPHA_T, CostParameters.DEFAULTS.alphaT()))
                .alphaHo(pick(fit, Coefficient.ALPHA_HO, CostParameters.DEFAULTS.alphaHo()))
                .qSlack(fit.qSlackValue())
                .alphaWf(pick(fit, Coefficient.ALPHA_WF, CostParameters.DEFAULTS.alphaWf()))
                .alphaWf2(pick(fit, Coefficient.ALPHA_WF2, CostParameters.DEFAULTS.alphaWf2()))
                .build();
        return ParameterSet.builder(workers).version(1).source(String.format(java.util.Locale.ROOT,
                "fitted on %d warm-up completions (R²=%.2f): α_p=%.3g α_p2=%.3g α_d=%.3g α_d2=%.3g α_t=%.3g α_ho=%.3g "
                        + "Q_slack=%.0f α_wf=%.3g α_wf2=%.3g", fit.samples(), fit.r2(), p.alphaP(), p.alphaP2(), p.alphaD(),
                p.alphaD2(), p.alphaT(), p.alphaHo(), p.qSlack(), p.alphaWf(), p.alphaWf2())).cost(p).build();
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
        return new LatencyObservation(c.finishMicros() / 1000, c.ttftMicros(), d.pEffTokens(),
                d.kvOverflowTokens() + d.queuedPrefillTokens(),
                d.recomputeQuadratic(), d.inflightDecodeTokens(), d.inflightDecodeQuadratic(), tierUs, d.queueLength(),
                d.affinityDecay(), d.toolHitFraction());
    }

    private static double pick(LatencyFit fit, Coefficient c, double fallback) {
        double v = fit.value(c);
        return fit.get(c).hasFiniteStdError() && Double.isFinite(v) && v >= 0 ? v : fallback;
    }
}
