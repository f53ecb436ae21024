package io.tierroute.schemas.snapshot;

import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * Rounds of reading both topics through, for a reader that follows them with one consumer (the selector's loader, the
 * dashboard's history reader): while its {@link ActivationRule} {@link ActivationRule#waitsForReadThrough waits} for a
 * record, it takes a {@link ActivationRule#readMark mark}, fetches the end offsets of every partition it reads
 * <em>after</em> that (the records counted in the mark were read, so published, before, and every record they depend on
 * was committed before them), and once its positions reach those offsets tells the rule
 * ({@link ActivationRule#readThrough}): whatever still waits then depends on a record that is not on the topics, and
 * is released. A record that is only late (a stalled fetch) is read before the positions get there, so nothing is
 * released early; a record that is gone no longer holds a scope back for ever. Kafka-free: the reader passes its
 * consumer's end offsets and positions ({@code P} is its partition type). One thread, the reader's.
 */
public final class ReadThrough<P> {

    /** What a round is for: an {@link ActivationRule}, or what holds one. */
    public interface Subject {
        /** {@link ActivationRule#waitsForReadThrough()}. */
        boolean waitsForReadThrough();

        /** {@link ActivationRule#readMark()}. */
        long readMark();

        /** {@link ActivationRule#readThrough(long)}. */
        boolean readThrough(long mark);
    }

    /** An {@link ActivationRule} as a {@link Subject}. */
    public static Subject of(ActivationRule rule) {
        return new Subject() {
            @Override
            public boolean waitsForReadThrough() {
                return rule.waitsForReadThrough();
            }

            @Override
            public long readMark() {
                return rule.readMark();
            }

            @Override
            public boolean readThrough(long mark) {
                return rule.readThrough(mark);
            }
        };
    }

    /** How long after end offsets could not be fetched the next try waits. */
    static final long RETRY_NANOS = 5_000_000_000L;

    private final LongSupplier nanoTime;
    private Map<P, Long> targets; // the round under way (partitions not reached yet); null: none
    private long mark;
    private long retryAt;
    private boolean retryPending;
    private long rounds;
    private long completedMark = -1; // the mark of the last round that ended; -1: none this session
    private long catchUpMark = -1;   // the mark when the reader's catch-up was first reached while something waited

    public ReadThrough() {
        this(System::nanoTime);
    }

    ReadThrough(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** Forgets a round under way: a new session reads into a new rule. */
    public void reset() {
        targets = null;
        retryPending = false;
        completedMark = -1;
        catchUpMark = -1;
    }

    /**
     * For a reader whose catch-up target (the end offsets at its session's start) is reached: whether it may now say it
     * is caught up (activate, report ready). True when nothing read waits for a round; otherwise only once a round that
     * started after catch-up was first reached has ended, so that a snapshot read during catch-up and held back for a
     * control record that is gone is released before the reader starts serving, not a moment after on a stale
     * version. Call after {@link #afterPoll} at every poll from the one where catch-up is reached until it returns true.
     */
    public boolean caughtUp(Subject subject) {
        if (!subject.waitsForReadThrough()) {
            return true;
        }
        if (catchUpMark < 0) {
            catchUpMark = subject.readMark();
        }
        return completedMark >= catchUpMark;
    }

    /** Rounds completed (tests, logs). */
    public long rounds() {
        return rounds;
    }

    /**
     * Call after the records of each poll are applied to the subject. Ends the round under way once
     * {@code position} has reached its end offsets on every partition, and starts one when the subject waits and none
     * is under way, with {@code endOffsets} fetched now (null when they cannot be had now: tried again
     * {@value #RETRY_NANOS} ns later). A partition whose position cannot be had now may return -1.
     *
     * @return whether a round ended and released something (the active version of a scope may have changed)
     */
    public boolean afterPoll(Subject subject, Supplier<Map<P, Long>> endOffsets, ToLongFunction<P> position) {
        boolean released = false;
        if (targets != null && reached(position)) {
            released = endRound(subject);
        }
        if (targets == null && subject.waitsForReadThrough()
                && (!retryPending || nanoTime.getAsLong() - retryAt >= 0)) {
            long m = subject.readMark(); // before the end offsets: what it counts was read before they were fetched
            Map<P, Long> ends = endOffsets.get();
            if (ends == null) {
                retryPending = true;
                retryAt = nanoTime.getAsLong() + RETRY_NANOS;
                return released;
            }
            retryPending = false;
            mark = m;
            targets = new HashMap<>(ends);
            if (reached(position)) { // nothing new on the topics since: the round ends now
                released |= endRound(subject);
            }
        }
        return released;
    }

    private boolean endRound(Subject subject) {
        targets = null;
        rounds++;
        completedMark = mark;
        return subject.readThrough(mark);
    }

    private boolean reached(ToLongFunction<P> position) {
        // >=, not ==: markers and aborted records at the end are skipped, never returned (read_committed).
        targets.entrySet().removeIf(e -> position.applyAsLong(e.getKey()) >= e.getValue());
        return targets.isEmpty();
    }
}
