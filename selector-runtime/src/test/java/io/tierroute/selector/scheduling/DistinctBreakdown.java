package io.tierroute.selector.scheduling;

/**
 * A {@link CostBreakdown} whose every number is different and non-zero, so a test of what reports it (the explain
 * JSON, the Avro decision record) fails when a field is missing, swapped with another or left at its default.
 */
public final class DistinctBreakdown {

    private DistinctBreakdown() {}

    /**
     * The numbers of {@code base + 1} … {@code base + 28} in the record's declaration order (the integer ones 15 and 22
     * as they are, the two shares 0.17 and 0.18, the cut-off tier 2), the tier arrays {@code base + 100 + t} and
     * {@code base + 110 + t}.
     */
    public static CostBreakdown of(double base) {
        long[] tierTokens = {(long) base + 100, (long) base + 101, (long) base + 102, (long) base + 103};
        double[] tierTransferUs = {0, base + 111, base + 112, base + 113};
        return new CostBreakdown(base + 1, base + 2, base + 3, base + 4, base + 5, base + 6, base + 7, base + 8,
                (long) base + 9, (long) base + 10, base + 11, (long) base + 12, base + 13, base + 14, tierTokens,
                tierTransferUs, 2, 15, base + 16, 0.17, 0.18, base + 19, (long) base + 20, base + 21, 22, base + 23,
                (long) base + 24, base + 25, base + 26, base + 27, base + 28);
    }
}
