package io.tierroute.selector.kafka;

import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.WakeupException;

/**
 * The loop of a Kafka client thread ({@link KvEventConsumer}, {@link ParameterLoader}): sessions, one after another,
 * until the owner stops. A session that fails is reported and, after the {@link RestartBackoff} wait, followed by a
 * new one that resumes at the same positions; a {@link WakeupException} is close() waking the client, not a failure.
 */
final class SessionLoop {

    /** What the owner does about a failed session before the wait: count it, log it, publish it. */
    @FunctionalInterface
    interface Restarting {
        void after(RuntimeException failure, long waitMillis);
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

    /** Runs {@code session} while {@code running}; {@code pause} waits (or returns early once stopped). */
    static void run(BooleanSupplier running, Runnable session, Restarting restarting, LongConsumer pause) {
        RestartBackoff backoff = new RestartBackoff();
        while (running.getAsBoolean()) {
            backoff.sessionStarts();
            try {
                session.run();
            } catch (WakeupException e) {
                // close(), or a wakeup left over from one: the loop's condition decides
            } catch (RuntimeException e) {
                if (!running.getAsBoolean()) {
                    return;
                }
                long wait = backoff.afterFailure();
                restarting.after(e, wait);
                pause.accept(wait);
            }
        }
    }
}
