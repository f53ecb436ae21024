package io.tierroute.cli;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Ctrl-C for a command that runs until stopped ({@code demo}, {@code fleet}): a shutdown hook that asks the command to
 * stop and then holds the JVM (at most a minute) until the command has closed what it started, e.g. a Kafka broker
 * process. In place from construction, so Ctrl-C during a long start-up stops what had started too.
 */
final class StopOnCtrlC implements AutoCloseable {
    /** Whether a hook of this JVM ran: a signal's shutdown is under way (see {@link TierrouteCommand#main}). */
    private static final AtomicBoolean SIGNALLED = new AtomicBoolean();
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final CountDownLatch closed = new CountDownLatch(1);
    private final Thread hook;

    StopOnCtrlC(String threadName) {
        hook = new Thread(() -> {
            SIGNALLED.set(true);
            stopRequested.countDown();
            try {
                closed.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        }, threadName);
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Whether Ctrl-C (or SIGTERM) reached any command of this JVM: its shutdown, not the command, sets the exit code. */
    static boolean signalled() {
        return SIGNALLED.get();
    }

    /** Whether Ctrl-C came. */
    boolean requested() {
        return stopRequested.getCount() == 0;
    }

    /** Waits up to {@code millis} for Ctrl-C; true if it came. */
    boolean await(long millis) throws InterruptedException {
        return stopRequested.await(millis, TimeUnit.MILLISECONDS);
    }

    /** Everything is closed: the hook may let the JVM go; outside a shutdown the hook is removed. */
    @Override
    public void close() {
        closed.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException ignored) {
            // the JVM is shutting down (Ctrl-C): the hook is running
        }
    }
}
