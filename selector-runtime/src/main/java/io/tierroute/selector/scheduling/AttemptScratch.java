package io.tierroute.selector.scheduling;

import io.tierroute.selector.scheduling.RouteDecision.PredictionSource;
import io.tierroute.selector.sequences.LoadView;

/**
 * One thread's buffers for {@link Selector}'s attempts, so a route allocates only its result; after an attempt, what
 * it found about every candidate ({@link #excluded} holds one of {@link Explanations}' markers, or null).
 */
final class AttemptScratch {
    final PromptLookup lookup;
    final RouteContext context;
    final CostTerms[] terms;
    final double[] cost;
    final boolean[] eligible;
    final String[] excluded;
    final LoadView[] loads;
    PredictionSource predictionSource;
    /** The workflow's previous step as the route found it (admitting this one replaces it), or null. */
    WorkflowAffinity.LastStep previousStep;
    int healthyCandidates;
    /** Healthy candidates whose KV cache can hold the prompt. */
    int holdingCandidates;
    double minCost;
    /** The last attempt held the request for late binding: either bound ({@link #heldForCheapest} says which). */
    boolean heldForLateBinding;
    /** Held by {@link LateBinding#cheapestEligibleWaits} (its cheapest worker has K waiting), not by the fleet-wide bound. */
    boolean heldForCheapest;

    AttemptScratch(PromptLookup lookup, int workers) {
        this.lookup = lookup;
        context = new RouteContext(workers);
        terms = new CostTerms[workers];
        for (int w = 0; w < workers; w++) {
            terms[w] = new CostTerms();
        }
        cost = new double[workers];
        eligible = new boolean[workers];
        excluded = new String[workers];
        loads = new LoadView[workers];
    }

    /** The lowest cost among the workers the last attempt found eligible (the picker may explore; this ranks). */
    double cheapestEligible() {
        double min = Double.POSITIVE_INFINITY;
        for (int w = 0; w < eligible.length; w++) {
            if (eligible[w]) {
                min = Math.min(min, cost[w]);
            }
        }
        return min;
    }

    /** The last attempt left a worker out as silent. */
    boolean excludedSilent() {
        return excludedBy(Explanations.SILENT);
    }

    /** The last attempt left a worker out for {@code marker}, one of {@link Explanations}' (compared by identity). */
    boolean excludedBy(String marker) {
        for (String e : excluded) {
            if (e == marker) {
                return true;
            }
        }
        return false;
    }

    /** The previous step's output tokens, an input of {@code d̂} and logged with it; or null. */
    Integer previousStepOutputTokens() {
        return previousStep == null ? null : previousStep.outputTokens();
    }
}
