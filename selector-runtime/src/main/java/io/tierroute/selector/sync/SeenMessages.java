package io.tierroute.selector.sync;

import io.tierroute.selector.sync.ReplicaSync.Heard;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which of the other replicas' numbered messages ({@link MessageId}) this replica has heard, by either path: per
 * sending replica, one bit for each of its last {@code window} sequence numbers (they are dense: a sender numbers every
 * message once). A message is the {@link Heard#FIRST} copy, a {@link Heard#COPY} of one heard before, or
 * {@link Heard#TOO_OLD} to tell: {@code window} or more numbers below the highest heard from its sender.
 *
 * <p>Bounded by the window per sender, not by a count of every sender's messages: a start-up read-back of Kafka's
 * lookback (hundreds of thousands of records) marks bits without pushing out what the direct path heard meanwhile.
 * What the window must cover is how many messages a sender sends between a datagram and Kafka's copy of it (Kafka's
 * lag). At most {@code maxSenders} senders are kept, the least lately heard forgotten first (replica ids change at
 * every restart), each counted ({@link #forgottenSenders}). Thread-safe: both paths' threads call it.
 */
final class SeenMessages {

    private final int windowBits;
    private final int maxSenders;
    private final Map<String, Window> senders;
    private long forgotten; // under this object's lock

    /**
     * @param windowBits a power of two: how many of a sender's latest numbers are remembered
     * @param maxSenders how many senders are remembered
     */
    SeenMessages(int windowBits, int maxSenders) {
        if (windowBits < 64 || Integer.bitCount(windowBits) != 1) {
            throw new IllegalArgumentException("windowBits must be a power of two >= 64, got " + windowBits);
        }
        this.windowBits = windowBits;
        this.maxSenders = maxSenders;
        this.senders = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Window> eldest) {
                if (size() > SeenMessages.this.maxSenders) {
                    forgotten++;
                    return true;
                }
                return false;
            }
        };
    }

    synchronized Heard see(MessageId id) {
        return senders.computeIfAbsent(id.replicaId(), r -> new Window(windowBits)).see(id.sequence());
    }

    /** Senders forgotten to make room for another: their messages' copies, if any come, are taken as first. */
    synchronized long forgottenSenders() {
        return forgotten;
    }

    /** One sender's latest numbers: a ring of bits indexed by the number modulo the window. */
    private static final class Window {
        private final long[] bits;
        private final long mask;
        private long highest; // 0: none heard yet

        Window(int windowBits) {
            this.bits = new long[windowBits / 64];
            this.mask = windowBits - 1;
        }

        Heard see(long sequence) {
            if (sequence > highest) {
                clearAfterHighestUpTo(sequence); // their ring positions held numbers a window older
                highest = sequence;
                set(sequence);
                return Heard.FIRST;
            }
            if (highest - sequence > mask) {
                return Heard.TOO_OLD;
            }
            if (isSet(sequence)) {
                return Heard.COPY;
            }
            set(sequence);
            return Heard.FIRST;
        }

        private void clearAfterHighestUpTo(long sequence) {
            long n = sequence - highest; // >= 1; counted, not compared: sequence may be Long.MAX_VALUE
            if (highest == 0 || n > mask) {
                Arrays.fill(bits, 0L);
                return;
            }
            for (long q = highest + 1; n > 0; n--, q++) {
                bits[(int) ((q & mask) >>> 6)] &= ~(1L << (q & 63));
            }
        }

        private boolean isSet(long q) {
            return (bits[(int) ((q & mask) >>> 6)] & (1L << (q & 63))) != 0;
        }

        private void set(long q) {
            bits[(int) ((q & mask) >>> 6)] |= 1L << (q & 63);
        }
    }
}
