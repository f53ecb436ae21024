package io.tierroute.selector.scheduling;

import java.util.Arrays;

/**
 * The chained block hashes of a queued request's prompt, as far as they have been computed: kept with it in the
 * admission queue so that the drains that try it again ({@link PromptLookup#hashAndMatch}) do not hash it again.
 * Hashing is most of an attempt's time, and while requests wait for a busy worker every drain tries up to
 * 16 + 128 of them (HeldForBusyWorkerDrainBenchmark); the prompt and its salt never change, so neither do its hashes.
 * It grows as deep as a lookup has had to hash (the index walk stops at the deepest worker's match), which is at
 * most one long per block of the prompt: an eighth of a token prompt's own array at block size 16, as much as a
 * prompt given as block ids; the queue's total grows with {@code maxQueued}. It goes with the request when the request
 * leaves the queue.
 *
 * <p>Not thread-safe: the arrival that queues the request fills it before the queue publishes it, and the drains,
 * which alone use it after that, hold the drain lock.
 */
final class PromptHashes {

    private long[] hashes;
    private int count;

    /** The first {@code count} of {@code hashes} (copied). */
    PromptHashes(long[] hashes, int count) {
        this.hashes = Arrays.copyOf(hashes, count);
        this.count = count;
    }

    /** How many leading blocks are known. */
    int count() {
        return count;
    }

    /** Copies the known hashes of blocks {@code [from, to)} (to ≤ {@link #count}) into {@code out}. */
    void copyTo(long[] out, int from, int to) {
        System.arraycopy(hashes, from, out, from, to - from);
    }

    /** Keeps the first {@code blocks} of {@code chain} when that is deeper than what it holds. */
    void extend(long[] chain, int blocks) {
        if (blocks > count) {
            hashes = Arrays.copyOf(hashes, blocks);
            System.arraycopy(chain, count, hashes, count, blocks - count);
            count = blocks;
        }
    }
}
