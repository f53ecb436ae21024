package io.tierroute.selector.kafka;

import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
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
