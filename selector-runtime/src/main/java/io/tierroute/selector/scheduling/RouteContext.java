package io.tierroute.selector.scheduling;

import java.util.Arrays;

/**
 * The request-level inputs of the cost model, the same for every candidate: prompt length,
 * predicted output, the model's block geometry, and the request's agent context. Mutable and reused
 * per thread by the selector; tests build one with {@link #of}.
 */
public final class RouteContext {

    private int isl;
    private int predictedOutputTokens;
    private int blockSize;
    private double bytesPerToken;
    private int lastWorker = -1;
    private double secondsSinceLastStep;
    private int expectedToolCount;
    private final int[] toolHits;
    private double fleetMeanInFlight;
    private double prefillDuty;
    private double arrivalRatePerWorker;
    private int hitSpreadBlocks = -1;

    public RouteContext(int workers) {
        this.toolHits = new int[workers];
    }

    /** A context without agent information. */
    public static RouteContext of(int workers, int isl, int predictedOutputTokens, int blockSize, double bytesPerToken) {
        RouteContext c = new RouteContext(workers);
        c.reset(isl, predictedOutputTokens, blockSize, bytesPerToken);
        return c;
    }

    /** Starts a new request: sets the geometry and clears the agent context. */
    public RouteContext reset(int isl, int predictedOutputTokens, int blockSize, double bytesPerToken) {
        this.isl = isl;
        this.predictedOutputTokens = predictedOutputTokens;
        this.blockSize = blockSize;
        this.bytesPerToken = bytesPerToken;
        this.lastWorker = -1;
        this.secondsSinceLastStep = 0;
        this.expectedToolCount = 0;
        Arrays.fill(toolHits, 0);
        this.fleetMeanInFlight = 0;
        this.prefillDuty = 0;
        this.arrivalRatePerWorker = 0;
        this.hitSpreadBlocks = -1;
        return this;
    }

    /**
     * How many more blocks of r's prefix the best-holding worker holds than the worst one (C_step's condition,
     * {@code CostModel.hitSpreadBlocks}), set once per route by the selector so that each candidate's score does
     * not walk every worker again; -1 (after {@link #reset}): each score computes it from its match.
     */
    public RouteContext hitSpreadBlocks(int blocks) {
        this.hitSpreadBlocks = blocks;
        return this;
    }

    public int hitSpreadBlocks() { return hitSpreadBlocks; }

    /** {@code Ā}: requests in flight per healthy worker, fleet-wide. */
    public RouteContext fleetMeanInFlight(double mean) {
        this.fleetMeanInFlight = mean;
        return this;
    }

    public double fleetMeanInFlight() { return fleetMeanInFlight; }

    /**
     * {@code D̄}: the fleet's prefill duty, the share of healthy workers with a request waiting for its first
     * token, averaged over routes; C_harm's {@code κ = harmWeight·(0.5 + 2·D̄)}. Clamped to [0, 1] (a share: the
     * fades {@code (1 − D̄)^n} of C_kv would grow again beyond 1).
     */
    public RouteContext prefillDuty(double duty) {
        this.prefillDuty = duty > 1 ? 1.0 : (duty > 0 ? duty : 0.0);
        return this;
    }

    public double prefillDuty() { return prefillDuty; }

    /**
     * {@code λ_w}: requests arriving per second per healthy worker, fleet-wide; on an idle worker C_harm counts
     * the {@code λ_w·T_pf} requests that arrive during r's prefill (at most {@code Ā}). 0 while unknown.
     */
    public RouteContext arrivalRatePerWorker(double perSecond) {
        this.arrivalRatePerWorker = perSecond;
        return this;
    }

    public double arrivalRatePerWorker() { return arrivalRatePerWorker; }

    /** The worker that ran this workflow's previous step, and how long ago (s) it finished. */
    public RouteContext lastStep(int worker, double secondsAgo) {
        this.lastWorker = worker;
        this.secondsSinceLastStep = secondsAgo;
        return this;
    }

    /** How many tools the request expects to call next. */
    public RouteContext expectedTools(int count) {
        this.expectedToolCount = count;
        return this;
    }

    /** How many of the expected tools have a warm prefix on {@code worker}. */
    public RouteContext toolHits(int worker, int hits) {
        this.toolHits[worker] = hits;
        return this;
    }

    public int isl() { return isl; }
    public int predictedOutputTokens() { return predictedOutputTokens; }
    public int blockSize() { return blockSize; }
    public double bytesPerToken() { return bytesPerToken; }
    public int lastWorker() { return lastWorker; }
    public double secondsSinceLastStep() { return secondsSinceLastStep; }
    public int expectedToolCount() { return expectedToolCount; }
    public int toolHits(int worker) { return toolHits[worker]; }
}
