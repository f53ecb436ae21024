package io.tierroute.selector.sequences;

/**
 * A prompt's prefix marks ({@link SharedPrefixKv}): the chained block hash at the end of each whole granule of
 * {@code tokensEach} tokens, in prompt order. A chained hash names its whole prefix, so equal marks mean an equal
 * prefix up to them.
 *
 * @param hashes     the marks (copied)
 * @param tokensEach prompt tokens per granule, positive when there are marks
 */
public record PrefixMarks(long[] hashes, long tokensEach) {

    /** No marks: the request's whole context is its own. */
    public static final PrefixMarks NONE = new PrefixMarks(new long[0], 0);

    public PrefixMarks {
        if (hashes.length > 0 && tokensEach <= 0) {
            throw new IllegalArgumentException("tokens per prefix mark must be positive, got " + tokensEach);
        }
        hashes = hashes.clone(); // a SharedPrefixKv entry must leave with the marks it entered with
    }

    /**
     * The marks of a prompt whose chained block hashes are {@code blockHashes[0, blocks)}: every {@code blocksPerMark}-th
     * hash, the last whole granule's included.
     */
    public static PrefixMarks of(long[] blockHashes, int blocks, int blocksPerMark, int blockSize) {
        if (blocksPerMark <= 0 || blockSize <= 0 || blocks < 0) {
            throw new IllegalArgumentException("blocks per mark and block size must be positive and blocks not "
                    + "negative, got " + blocksPerMark + ", " + blockSize + " and " + blocks);
        }
        long[] marks = new long[Math.min(blocks, blockHashes.length) / blocksPerMark];
        for (int i = 0; i < marks.length; i++) {
            marks[i] = blockHashes[(i + 1) * blocksPerMark - 1];
        }
        return marks.length == 0 ? NONE : new PrefixMarks(marks, (long) blocksPerMark * blockSize);
    }

    /** The marks whose granules lie within a prompt of {@code promptTokens} tokens (all of them, as a rule). */
    public PrefixMarks within(long promptTokens) {
        long fit = tokensEach == 0 ? 0 : Math.min(hashes.length, promptTokens / tokensEach);
        return fit == hashes.length ? this : fit == 0 ? NONE
                : new PrefixMarks(java.util.Arrays.copyOf(hashes, (int) fit), tokensEach);
    }

    /** Prompt tokens the marks cover. */
    public long tokens() {
        return hashes.length * tokensEach;
    }

    /** The marks themselves, a copy. */
    @Override
    public long[] hashes() {
        return hashes.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PrefixMarks m && m.tokensEach == tokensEach && java.util.Arrays.equals(m.hashes, hashes);
    }

    @Override
    public int hashCode() {
        return 31 * java.util.Arrays.hashCode(hashes) + Long.hashCode(tokensEach);
    }

    /** The marks without a copy, for this package's counting only. */
    long[] marks() {
        return hashes;
    }
}
