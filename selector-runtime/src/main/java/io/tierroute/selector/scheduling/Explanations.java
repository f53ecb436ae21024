package io.tierroute.selector.scheduling;

import io.tierroute.selector.protocol.WorkerRegistry;
import io.tierroute.selector.sequences.InFlightTracker;

import java.util.ArrayList;
import java.util.List;

/**
 * What {@link Selector} tells people: why each candidate left the pick (an explained route), and why a request was
 * refused or would wait (a preview, a queue timeout, a prompt no worker can hold). The markers an attempt leaves in
 * {@link AttemptScratch#excluded} are compared by identity, so an explanation is written only when one is asked for.
 */
final class Explanations {

    /** A candidate whose KV cache cannot hold the prompt; not scored. */
    static final String PROMPT_TOO_LARGE = "prompt larger than its KV cache";
    /** A candidate that scored a non-finite cost (a bug or a bad parameter): never let it win or poison the pick. */
    static final String NON_FINITE_COST = "non-finite cost";
    /** Scored, filtered by its load limits. */
    static final String OVER_LOAD = "over load";
    /** Scored, left out of the pick: K of ours wait on it for their first token ({@link LateBinding}). */
    static final String CHEAPEST_WAITS = "late binding";
    /** Scored, left out of the pick and the hold: silent while ours wait there ({@link LateBinding}). */
    static final String SILENT = "silent";
    /** Scored, left out of the pick at light load: far busier than the least-loaded ({@link LightLoadSpread}). */
    static final String SPREAD = "light-load spread";

    private final SelectorSettings settings;
    private final WorkerRegistry registry;
    private final WorkerSpec[] specs;
    private final WorkerStatus status;
    private final InFlightTracker inflight;

    Explanations(SelectorSettings settings, WorkerRegistry registry, WorkerSpec[] specs, WorkerStatus status,
                 InFlightTracker inflight) {
        this.settings = settings;
        this.registry = registry;
        this.specs = specs;
        this.status = status;
        this.inflight = inflight;
    }

    /** Every worker with its cost terms (when scored) and why it was left out (null when eligible). */
    List<RouteDecision.Candidate> candidates(AttemptScratch s) {
        int workers = s.excluded.length;
        List<RouteDecision.Candidate> out = new ArrayList<>(workers);
        for (int w = 0; w < workers; w++) {
            String e = s.excluded[w];
            boolean scored = e == null || e == OVER_LOAD || e == CHEAPEST_WAITS || e == SILENT || e == SPREAD;
            out.add(new RouteDecision.Candidate(registry.name(w), reason(w, e, s),
                    scored ? s.terms[w].toBreakdown() : null));
        }
        return out;
    }

    private String reason(int w, String exclusion, AttemptScratch s) {
        if (exclusion == OVER_LOAD) {
            return LoadLimits.reason(specs[w], s.loads[w]);
        }
        if (exclusion == CHEAPEST_WAITS) {
            return "late binding: holdAtCheapestWaiting (" + settings.holdAtCheapestWaiting()
                    + ") of this selector's requests waiting for their first token";
        }
        if (exclusion == SPREAD) {
            return "light-load spread: more than spreadWithin (" + settings.spreadWithin() + ") requests in flight"
                    + " (this selector's, or the engine's count if larger) beyond the least-loaded candidate while the"
                    + " fleet is lightly loaded, and not " + (long) (LightLoadSpread.KEEP_SAVING_US / 1000)
                    + " ms cheaper than every candidate within that";
        }
        if (exclusion == SILENT) {
            return "silent: this selector's requests wait there, and it has shown no work (output of this selector's"
                    + " requests, or telemetry reporting a prefill or decode step) for more than "
                    + settings.holdAtCheapestSilentAfter().toMillis() + " ms (holdAtCheapestSilentAfter)";
        }
        return exclusion;
    }

    /** Why a preview found no worker eligible now (an attempt that returned null, with a worker that could hold it). */
    String previewRefusal(AttemptScratch s) {
        if (s.healthyCandidates == 0) {
            return noneTakesRequests();
        }
        if (s.heldForLateBinding && s.excludedBy(SPREAD)) {
            return "late binding holds it: the workers the light-load spread left in the pick (spreadWithin "
                    + settings.spreadWithin() + "; it left out those with more requests in flight) have their bound of"
                    + " requests waiting for their first token (holdAtWaiting " + settings.holdAtWaiting()
                    + ", holdAtCheapestWaiting " + settings.holdAtCheapestWaiting()
                    + "): the request would wait in the admission queue";
        }
        if (s.heldForCheapest) {
            return "the cheapest worker for it has " + settings.holdAtCheapestWaiting() + " or more requests waiting"
                    + " for their first token (holdAtCheapestWaiting): the request would wait in the admission"
                    + " queue for it, or for another to become cheaper";
        }
        if (s.heldForLateBinding) {
            return "every worker the prompt fits has " + settings.holdAtWaiting() + " or more requests waiting for their"
                    + " first token (holdAtWaiting): the request would wait in the admission queue";
        }
        if (s.excludedSilent()) {
            return "every worker is over its load limit or silent (holdAtCheapestSilentAfter: no work shown for "
                    + settings.holdAtCheapestSilentAfter().toMillis() + " ms while this selector's requests wait"
                    + " there): the request would wait in the admission queue";
        }
        return "every worker is over its load limit: the request would wait in the admission queue";
    }

    String noneTakesRequests() {
        return "no worker can take requests: all " + registry.size() + " are unhealthy or draining";
    }

    /** Why a request that waited {@code maxQueueWait} in the admission queue is refused. */
    String queueTimeout() {
        return "waited " + settings.maxQueueWait().toMillis() + " ms in the admission queue; every worker stayed over its"
                + " load limit"
                + (settings.holdAtWaiting() > 0 ? " or had " + settings.holdAtWaiting()
                        + " or more requests waiting for their first token (holdAtWaiting)" : "")
                + (settings.holdAtCheapestWaiting() > 0 ? ", or the cheapest one for it had "
                        + settings.holdAtCheapestWaiting() + " or more waiting (holdAtCheapestWaiting)"
                        + (settings.holdAtCheapestSilentAfter().isZero() ? ""
                                : " or was silent (holdAtCheapestSilentAfter)") : "");
    }

    /** Only when a route is refused: the largest cache is looked up then, not on every route. */
    PromptTooLargeException tooLarge(AttemptScratch s) {
        long largest = 0;
        for (int w = 0; w < status.size(); w++) {
            if (status.takesRequests(w)) {
                largest = Math.max(largest, inflight.view(w).kvCapacityTokens());
            }
        }
        return new PromptTooLargeException("the prompt's " + s.context.isl() + " tokens do not fit the KV cache of any "
                + "worker that takes requests (the largest holds " + largest + " tokens, and a prompt must leave room "
                + "for one output token)");
    }
}
