package io.tierroute.selector.threads;

import java.util.concurrent.TimeUnit;

/**
 * The blocking steps of a close, run as if the closing thread were not interrupted, its interrupt restored after. A
 * shutdown often runs on an interrupted thread (a shutdown hook under an executor's shutdownNow, a timed-out test): a
 * join would return at once, leaving the part's thread running (a direct-path receiver still applying a datagram to
 * the selector), and {@code KafkaProducer.close} would throw {@code InterruptException} before flushing, aborting the
 * rest of the shutdown. Each step stays bounded by its own timeout.
 */
public final class Uninterrupted {

    private Uninterrupted() {}

    /** Runs {@code step} with the interrupt flag cleared; restores it after (also when {@code step} throws). */
    public static void run(Runnable step) {
        boolean interrupted = Thread.interrupted();
        try {
            step.run();
        } finally {
            if (interrupted || Thread.interrupted()) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Waits up to {@code millis} for {@code t} to end, whatever interrupts the caller meanwhile (restored after). */
    public static void join(Thread t, long millis) {
        boolean interrupted = Thread.interrupted();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        try {
            for (long left = millis; left > 0 && t.isAlive();
                    left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) {
                try {
                    t.join(left);
                } catch (InterruptedException e) {
                    interrupted = true; // kept for the caller; the wait stays bounded by its deadline
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
