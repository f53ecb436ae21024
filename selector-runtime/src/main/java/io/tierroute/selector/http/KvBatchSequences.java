package io.tierroute.selector.http;

import java.util.Arrays;
import java.util.function.BooleanSupplier;

/**
 * The batch {@code sequence} of each worker's {@code POST /v1/kv-events}: 0 at the engine's start, then one more per
 * batch, as {@code KvEventBatch.sequence} on Kafka. A batch one above the worker's last is applied. A batch not above
 * the last is skipped when it is the last again with the same body (a sender's retry after a lost answer) or older (a
 * batch overtaken by a later one, a number reused): its events are older than what the index already has, and applied
 * late a {@code stored} would put back blocks the engine has since removed, and never removes again: hits the worker
 * no longer has, priced as free. 0 after others, or 0 again with other events, is the engine's restart (its cache is
 * empty): the worker's index entries are cleared, then the batch applied. A gap (batches that never arrived) clears them
 * too, since the index no longer knows what the worker holds, and the events that follow rebuild them; the missing
 * batches, should they still arrive, are skipped. A numbered batch refused as malformed or too large is lost: the
 * worker is cleared and its next batch taken as is ({@link #lost}). A worker's first numbered batch is taken as is, and
 * a batch without a sequence is applied and not tracked.
 *
 * <p>A batch may also name the engine's run ({@code epoch}, any number that rises with each run): a batch of an earlier
 * run than the worker's is skipped whatever its number (a batch of the run before a restart, still on its way after
 * the new run's first), and a later run's batch clears the worker whatever its number. Without epochs the two runs'
 * numbers cannot be told apart: the old run's late batch reads as a gap.
 *
 * <p>The Kafka consumer reads a step back as a resync (it clears and applies): its batches come in the order one
 * producer wrote them, so a step back there means a log rewound or a producer's retry, while over HTTP it is a late
 * retry or a reordered post, whose events are stale.
 *
 * <p>Thread-safe: the judgement and the hand-off to the index writer are one step under the worker's lock, so batches
 * of one worker reach the writer in sequence order. A batch the writer refuses (503: its queue is full) leaves the
 * worker's sequence as it was, so the retry of that batch is applied; a clear the writer refused goes in front of the
 * worker's next batch.
 */
final class KvBatchSequences {
    /** What happened to a numbered batch. */
    enum Outcome {
        /** The next batch, or the worker's first: applied. */
        APPLIED,
        /** Not above the last (and not a restart): not applied. */
        SKIPPED,
        /** From an earlier run of the engine than the worker's: not applied. */
        EARLIER_RUN,
        /** 0 after others, or 0 again with other events: the engine restarted; cleared, then applied. */
        RESTART,
        /** A later run of the engine than the worker's: it restarted; cleared, then applied. */
        NEW_RUN,
        /** Above the next: batches missing; the worker's entries cleared, then the batch applied. */
        GAP,
        /** The index writer's queue was full: nothing applied, the sequence not taken. */
        REFUSED;

        /** Whether the worker's index entries were cleared in front of the batch because of its number. */
        boolean cleared() {
            return this == RESTART || this == NEW_RUN || this == GAP;
        }
    }

    private static final long NONE = -1;
    /** No epoch seen from the worker. */
    static final long NO_EPOCH = Long.MIN_VALUE;
    private final long[] last;
    private final long[] epoch;
    private final long[] lastBodyHash;
    /** A clear the writer could not take when it was due: it goes in front of the worker's next batch. */
    private final boolean[] clearPending;
    private final Object[] locks;

    KvBatchSequences(int workers) {
        last = new long[workers];
        Arrays.fill(last, NONE);
        lastBodyHash = new long[workers];
        epoch = new long[workers];
        Arrays.fill(epoch, NO_EPOCH);
        clearPending = new boolean[workers];
        locks = new Object[workers];
        for (int w = 0; w < workers; w++) {
            locks[w] = new Object();
        }
    }

    /** A batch queued to the index writer, behind a clear of its worker when asked; false when the writer is full. */
    interface Submit {
        boolean submit(boolean clearFirst);
    }

    /**
     * The outcome, the worker's last batch before this one (-1: none numbered yet) and its run ({@link #NO_EPOCH}: none
     * named).
     */
    record Judged(Outcome outcome, long previous, long previousEpoch) {}

    /** As {@link #submit(int, long, long, long, Submit)} for a batch that names no run. */
    Judged submit(int worker, long sequence, long bodyHash, Submit submit) {
        return submit(worker, NO_EPOCH, sequence, bodyHash, submit);
    }

    /**
     * Judges batch {@code sequence} (≥ 0) of {@code worker}'s run {@code runEpoch} ({@link #NO_EPOCH}: not named), whose
     * body hashes to {@code bodyHash}, and unless it is skipped hands it to {@code submit}.
     */
    Judged submit(int worker, long runEpoch, long sequence, long bodyHash, Submit submit) {
        synchronized (locks[worker]) {
            long previous = last[worker];
            long previousEpoch = epoch[worker];
            boolean named = runEpoch != NO_EPOCH && previousEpoch != NO_EPOCH;
            Outcome outcome;
            if (named && runEpoch < previousEpoch) {
                return new Judged(Outcome.EARLIER_RUN, previous, previousEpoch);
            } else if (named && runEpoch > previousEpoch) {
                outcome = Outcome.NEW_RUN;
            } else if (previous == NONE || sequence == previous + 1) {
                outcome = Outcome.APPLIED;
            } else if (sequence == 0 && (previous > 0 || bodyHash != lastBodyHash[worker])) {
                outcome = Outcome.RESTART; // 0 again with other events: restarted before its second batch
            } else if (sequence > previous) {
                outcome = Outcome.GAP;
            } else {
                return new Judged(Outcome.SKIPPED, previous, previousEpoch);
            }
            if (!submit.submit(outcome.cleared() || clearPending[worker])) {
                return new Judged(Outcome.REFUSED, previous, previousEpoch);
            }
            last[worker] = sequence;
            lastBodyHash[worker] = bodyHash;
            clearPending[worker] = false;
            if (runEpoch != NO_EPOCH) {
                epoch[worker] = runEpoch;
            }
            return new Judged(outcome, previous, previousEpoch);
        }
    }

    /**
     * A numbered batch of {@code worker} was refused (malformed, too large): its events are lost, so the worker's entries
     * are cleared ({@code clear} queues a clear; when the writer is full, one goes in front of the next batch) and its
     * next batch is taken as is, whatever its number.
     */
    void lost(int worker, BooleanSupplier clear) {
        synchronized (locks[worker]) {
            last[worker] = NONE;
            clearPending[worker] = !clear.getAsBoolean();
        }
    }
}
