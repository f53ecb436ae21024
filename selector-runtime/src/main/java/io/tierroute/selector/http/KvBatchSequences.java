package io.tierroute.selector.http;

import java.util.Arrays;

/**
 * The batch {@code sequence} of each worker's {@code POST /v1/kv-events}: 0 at the engine's start, then one more per
 * batch, as {@code KvEventBatch.sequence} on Kafka. A batch one above the worker's last is applied. A batch not above
 * the last (a sender's retry whose first attempt was applied, a batch overtaken by a later one, a number reused) is
 * skipped: its events are older than what the index already has, and applied late a {@code stored} would put back
 * blocks the engine has since removed, and never removes again: hits the worker no longer has, priced as free. 0 after
 * others is the engine's restart (its cache is empty): the worker's index entries are cleared, then the batch applied.
 * A gap (batches that never arrived) clears them too, since the index no longer knows what the worker holds, and the
 * events that follow rebuild them; the missing batches, should they still arrive, are skipped. A worker's first
 * numbered batch is taken as is, and a batch without a sequence is applied and not tracked.
 *
 * <p>The Kafka consumer reads a step back as a resync (it clears and applies): its batches come in the order one
 * producer wrote them, so a step back there means a log rewound or a producer's retry, while over HTTP it is a late
 * retry or a reordered post, whose events are stale.
 *
 * <p>Thread-safe: the judgement and the hand-off to the index writer are one step under the worker's lock, so batches
 * of one worker reach the writer in sequence order. A batch the writer refuses (503: its queue is full) leaves the
 * worker's sequence as it was, so the retry of that batch is applied.
 */
final class KvBatchSequences {
    /** What happened to a numbered batch. */
    enum Outcome {
        /** The next batch, or the worker's first: applied. */
        APPLIED,
        /** Not above the last: not applied. */
        SKIPPED,
        /** Back to 0: the engine restarted; the worker's entries cleared, then the batch applied. */
        RESTART,
        /** Above the next: batches missing; the worker's entries cleared, then the batch applied. */
        GAP,
        /** The index writer's queue was full: nothing applied, the sequence not taken. */
        REFUSED;

        /** Whether the worker's index entries were cleared in front of the batch. */
        boolean cleared() {
            return this == RESTART || this == GAP;
        }
    }

    private static final long NONE = -1;
    private final long[] last;
    private final Object[] locks;

    KvBatchSequences(int workers) {
        last = new long[workers];
        Arrays.fill(last, NONE);
        locks = new Object[workers];
        for (int w = 0; w < workers; w++) {
            locks[w] = new Object();
        }
    }

    /** A batch queued to the index writer, behind a clear of its worker when asked; false when the writer is full. */
    interface Submit {
        boolean submit(boolean clearFirst);
    }

    /** The outcome, and the worker's last batch before this one (-1: none numbered yet). */
    record Judged(Outcome outcome, long previous) {}

    /**
     * Judges batch {@code sequence} (≥ 0) of {@code worker} and, unless it is skipped, hands it to {@code submit}.
     */
    Judged submit(int worker, long sequence, Submit submit) {
        synchronized (locks[worker]) {
            long previous = last[worker];
            Outcome outcome;
            if (previous == NONE || sequence == previous + 1) {
                outcome = Outcome.APPLIED;
            } else if (sequence == 0 && previous > 0) {
                outcome = Outcome.RESTART;
            } else if (sequence > previous) {
                outcome = Outcome.GAP;
            } else {
                outcome = Outcome.SKIPPED;
            }
            if (outcome != Outcome.SKIPPED) {
                if (submit.submit(outcome.cleared())) {
                    last[worker] = sequence;
                } else {
                    outcome = Outcome.REFUSED;
                }
            }
            return new Judged(outcome, previous);
        }
    }
}
