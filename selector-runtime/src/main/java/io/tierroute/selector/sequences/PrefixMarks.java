package io.tierroute.selector.sequences;

import java.util.Arrays;

/**
 * A prompt's prefix marks ({@link SharedPrefixKv}): the chained block hash at the end of each whole granule of
 * {@link #tokensEach} tokens, in prompt order. A chained hash names its whole prefix, so equal marks mean an equal
 * prefix up to them. Immutable: built by {@link #of} (or {@link #within}) from arrays of its own.
 */
public final class PrefixMarks {

    /** No marks: the request's whole context is its own. */
    public static final PrefixMarks NONE = new PrefixMarks(new long[0], 0);

    private final long[] marks;
    private final long tokensEach;

    /** @param marks taken as they are (the caller's own array); {@code tokensEach} positive when there are marks */
    PrefixMarks(long[] marks, long tokensEach) {
        if (marks.length > 0 && tokensEach <= 0) {
            throw new IllegalArgumentException("tokens per prefix mark must be positive, got " + tokensEach);
        }
        this.marks = marks;
        this.tokensEach = tokensEach;
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
    PrefixMarks within(long promptTokens) {
        long fit = tokensEach == 0 ? 0 : Math.min(marks.length, promptTokens / tokensEach);
        return fit == marks.length ? this : fit == 0 ? NONE : new PrefixMarks(Arrays.copyOf(marks, (int) fit), tokensEach);
    }

    /** Prompt tokens one granule holds (0 without marks). */
    public long tokensEach() {
        return tokensEach;
    }

    /** Prompt tokens the marks cover. */
    public long tokens() {
        return marks.length * tokensEach;
    }

    /** The marks, in prompt order; this package's counting reads them, never writes. */
    long[] marks() {
        return marks;
    }

    /** A copy of the marks, in prompt order (what another selector replica is told: {@link #ofMarks}). */
    public long[] toArray() {
        return marks.clone();
    }

    /**
     * Marks as another selector replica took them ({@link #toArray}, {@link #tokensEach}): a copy of {@code marks};
     * {@link #NONE} when there are none.
     *
     * @throws IllegalArgumentException when there are marks and {@code tokensEach} is not positive
     */
    public static PrefixMarks ofMarks(long[] marks, long tokensEach) {
        return marks.length == 0 ? NONE : new PrefixMarks(marks.clone(), tokensEach);
    }
}
