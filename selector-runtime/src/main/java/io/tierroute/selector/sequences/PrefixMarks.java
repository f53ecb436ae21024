package io.tierroute.selector.sequences;

/**
 * A prompt's prefix marks ({@link SharedPrefixKv}): the chained block hash at the end of each whole granule of
 * {@code tokensEach} tokens, in prompt order. A chained hash names its whole prefix, so equal marks mean an equal
 * prefix up to them.
 *
 * @param hashes     the marks; not copied (the caller hands over an array of its own)
 * @param tokensEach prompt tokens per granule, positive when there are marks
 */
public record PrefixMarks(long[] hashes, long tokensEach) {

    /** No marks: the request's whole context is its own. */
    public static final PrefixMarks NONE = new PrefixMarks(new long[0], 0);

    public PrefixMarks {
        if (hashes.length > 0 && tokensEach <= 0) {
            throw new IllegalArgumentException("tokens per prefix mark must be positive, got " + tokensEach);
        }
    }

    /**
     * The marks of a prompt whose chained block hashes are {@code blockHashes[0, blocks)}: every {@code blocksPerMark}-th
     * hash, the last whole granule's included.
     */
    public static PrefixMarks of(long[] blockHashes, int blocks, int blocksPerMark, int blockSize) {
        if (blocksPerMark <= 0 || blockSize <= 0) {
            throw new IllegalArgumentException("blocks per mark and block size must be positive, got " + blocksPerMark
                    + " and " + blockSize);
        }
        long[] marks = new long[Math.min(blocks, blockHashes.length) / blocksPerMark];
        for (int i = 0; i < marks.length; i++) {
            marks[i] = blockHashes[(i + 1) * blocksPerMark - 1];
        }
        return marks.length == 0 ? NONE : new PrefixMarks(marks, (long) blocksPerMark * blockSize);
    }

    /** Prompt tokens the marks cover. */
    public long tokens() {
        return hashes.length * tokensEach;
    }
}
