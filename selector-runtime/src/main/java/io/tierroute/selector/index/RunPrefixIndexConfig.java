package io.tierroute.selector.index;

/**
 * Construction options of {@link RunPrefixIndex} (validated here) and their {@link Builder}, which
 * holds the defaults; reached through {@link RunPrefixIndex#builder()}.
 */
public record RunPrefixIndexConfig(int workers, long maxBlocks, double pruneToFraction, int expectedBlocks) {
    public RunPrefixIndexConfig {
        if (workers <= 0) {
            throw new IllegalArgumentException("workers must be positive: " + workers);
        }
        if (maxBlocks <= 0) {
            throw new IllegalArgumentException("maxBlocks must be positive: " + maxBlocks);
        }
        if (!(pruneToFraction > 0 && pruneToFraction <= 1)) {
            throw new IllegalArgumentException("pruneToFraction must be in (0, 1]: " + pruneToFraction);
        }
    }

    /** Builder; only {@code workers} is required. */
    public static final class Builder {
        private int workers;
        private long maxBlocks = 4_000_000;
        private double pruneToFraction = 0.9;
        private int expectedBlocks = 1 << 16;

        /** Number of workers (dense indices {@code 0..workers-1}); fixed for the index's life. */
        public Builder workers(int workers) {
            this.workers = workers;
            return this;
        }

        /** Cap on indexed blocks; past it the writer prunes least recently used runs. Default 4 M. */
        public Builder maxBlocks(long maxBlocks) {
            this.maxBlocks = maxBlocks;
            return this;
        }

        /** A prune brings the count down to {@code maxBlocks * fraction} (batching). Default 0.9. */
        public Builder pruneToFraction(double fraction) {
            this.pruneToFraction = fraction;
            return this;
        }

        /** Initial table sizing hint (the table grows as needed). Default 65 536. */
        public Builder expectedBlocks(int expectedBlocks) {
            this.expectedBlocks = expectedBlocks;
            return this;
        }

        public RunPrefixIndex build() {
            return new RunPrefixIndex(new RunPrefixIndexConfig(workers, maxBlocks, pruneToFraction, expectedBlocks));
        }
    }
}
