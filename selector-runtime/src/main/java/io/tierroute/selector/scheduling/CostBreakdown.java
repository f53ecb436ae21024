package io.tierroute.selector.scheduling;

/**
 * An immutable copy of {@link CostTerms}: why a worker cost what it did. Every decision carries the
 * breakdown of the chosen worker (and, with {@code explain}, of every candidate), so an operator can
 * see why a worker won and the fitter can regress realised times on the features. Times in µs.
 */
public record CostBreakdown(
        double prefillUs,
        double decodeUs,
        double kvUs,
        double tierUs,
        double headOfLineUs,
        double workflowBonusUs,
        double toolsBonusUs,
        double totalUs,
        long hitTokens,
        long pEffTokens,
        double recomputeQuadratic,
        long inflightDecodeTokens,
        double inflightDecodeQuadratic,
        double kvOverflowTokens,
        long[] tierTokens,
        double[] tierTransferUs,
        int cutOffTier,
        int queueLength,
        double queueExcessSquared,
        double affinityDecay,
        double toolHitFraction) {
}
