package io.tierroute.selector.kafka;

import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.WakeupException;

/**
 * The loop of a Kafka client thread ({@link KvEventConsumer}, {@link ParameterLoader}): sessions, one after another,
 * until the owner stops. A session that fails is reported and, after the {@link RestartBackoff} wait, followed by a
 * new one that resumes at the same positions; a {@link WakeupException} is close() waking the client, not a failure.
 * An {@link Error} (out of memory, a stack overflow, a class that failed to load) ends the loop: the owner records it
 * for good ({@link io.tierroute.selector.threads.PartStop}) rather than restarting into the same state, and nothing
 * catches it above the thread.
 */
final class SessionLoop {

    /** What the owner does about a failed session before the wait: count it, log it, publish it. */
    @FunctionalInterface
    interface Restarting {
        void after(RuntimeException failure, long waitMillis);
    }

    /** What the owner does about an {@link Error} that ends the loop: record it, say what it was doing. */
    @FunctionalInterface
    interface Stopping {
        void stopped(Throwable error);
    }

    private SessionLoop() {
    }

    /** A failure with its causes on one line ({@code Failed to construct kafka consumer} says nothing without them). */
    static String describe(RuntimeException failure) {
        StringBuilder sb = new StringBuilder(failure.toString());
        for (Throwable c = failure.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            sb.append("; caused by ").append(c);
        }
        return sb.toString();
    }

    /**
     * The failure, for its stack trace in the log; null for a client's settings being refused ({@link ConfigException}
     * anywhere in its causes: no resolvable bootstrap address, a bad value), which {@link #describe} says in full and a
     * trace per restart only buries.
     */
    static RuntimeException traceWorthLogging(RuntimeException failure) {
        for (Throwable c = failure; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof ConfigException) {
                return null;
            }
        }
        return failure;
    }

    /**
     * Runs {@code session} while {@code running}; {@code pause} waits (or returns early once stopped). Returns after an
     * Error, handed to {@code stopping}.
     */
    static void run(BooleanSupplier running, Runnable session, Restarting restarting, Stopping stopping,
                    LongConsumer pause) {
        RestartBackoff backoff = new RestartBackoff();
        while (running.getAsBoolean()) {
            backoff.sessionStarts();
            try {
                session.run();
            } catch (WakeupException e) {
                // close(), or a wakeup left over from one: the loop's condition decides
            } catch (RuntimeException e) {
                if (!failed(running, e, backoff, restarting, pause)) {
                    return;
                }
            } catch (Exception e) { // a checked exception thrown through a lambda: a failure like the others
                if (!failed(running, new IllegalStateException(e.toString(), e), backoff, restarting, pause)) {
                    return;
                }
            } catch (Throwable t) {
                stopping.stopped(t);
                return;
            }
        }
    }

    /** A failed session: reported, then the back-off. False when the owner has stopped (nothing to report). */
    private static boolean failed(BooleanSupplier running, RuntimeException e, RestartBackoff backoff,
                                  Restarting restarting, LongConsumer pause) {
        if (!running.getAsBoolean()) {
            return false;
        }
        long wait = backoff.afterFailure();
        restarting.after(e, wait);
        pause.accept(wait);
        return true;
    }
}
