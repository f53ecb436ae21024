package io.tierroute.sim.policy;

import java.util.Locale;

/**
 * A policy that fits its parameters on a warm-up run got too few completions there to fit on, so it routes without
 * that fit: with its default parameters, or with an earlier warm-up round's fit. Its figures then measure those, not a
 * fit, and a report must say so ({@link RoutingPolicy#warmUpShortfall}).
 *
 * @param completions the completions the last warm-up round gave to fit on
 * @param needed      the fewest a fit takes
 * @param onDefaults  whether the policy routes with its default parameters (else with an earlier round's fit)
 */
public record WarmUpShortfall(long completions, int needed, boolean onDefaults) {

    /** What the policy routed with and why, in one clause: "not fitted, ran on its default parameters: ...". */
    public String describe() {
        return String.format(Locale.ROOT, onDefaults
                ? "not fitted, ran on its default parameters: its warm-up gave %d completions, fewer than the %d a fit needs"
                : "not fitted on its last warm-up round, ran on the round before's fit: that round gave %d completions, "
                        + "fewer than the %d a fit needs", completions, needed);
    }
}
