package io.tierroute.sim.policy.oracle;

/**
 * What the clairvoyant oracle minimises over its forecasts (fleet-sim/experiments/ROUNDS.md, "Oracle round"). Two
 * references, because no greedy price measured was both: one that bounds the fleet's TTFT where the fleet
 * has headroom, and one that does not collapse where it is saturated.
 */
public enum OraclePricing {

    /**
     * {@code oracle}: r's TTFT + the TTFT and JCT it adds to everyone on the worker, and no placement that adds
     * a preemption while another does not. No collapse in 53 of 54 cells at seeds 1–3, at or below the best
     * peer's mean JCT in most; above the best peer's mean TTFT at light load (it trades TTFT for the others'
     * completion times).
     */
    FLEET("oracle", "clairvoyant forecast: own TTFT + added TTFT/JCT, no added preemption (exact state, true output lengths)",
            true, true),

    /**
     * {@code oracle-ttft}: r's TTFT + the TTFT it adds to the requests on the worker still waiting for their
     * first token; nothing else. The TTFT reference: at or below the best peer's mean TTFT in 16 / 16 / 14 of
     * 18 cells at seeds 1–3, but it collapses under saturation (Mooncake 3, agentic-pcie 1.25), where
     * preempting a decoder costs it no TTFT.
     */
    FLEET_TTFT("oracle-ttft", "clairvoyant forecast: own TTFT + added TTFT (exact state, true output lengths)",
            false, false);

    private final String policyName;
    private final String description;
    private final boolean pricesAddedJct;
    private final boolean avoidsAddedPreemption;

    OraclePricing(String policyName, String description, boolean pricesAddedJct, boolean avoidsAddedPreemption) {
        this.policyName = policyName;
        this.description = description;
        this.pricesAddedJct = pricesAddedJct;
        this.avoidsAddedPreemption = avoidsAddedPreemption;
    }

    /** The name the benchmark's {@code --policies} takes. */
    public String policyName() {
        return policyName;
    }

    /** The policy's version line in the benchmark's results. */
    public String description() {
        return description;
    }

    /** Whether the JCT r adds to the requests on the worker is part of the cost. */
    boolean pricesAddedJct() {
        return pricesAddedJct;
    }

    /** Whether a placement that adds a preemption is taken only when every placement does. */
    boolean avoidsAddedPreemption() {
        return avoidsAddedPreemption;
    }
}
