package io.tierroute.selector.kafka;

import io.tierroute.selector.threads.PartStop;
import io.tierroute.selector.threads.Uninterrupted;
import org.apache.kafka.clients.consumer.KafkaConsumer;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The thread of a consumer that reads one topic with no group ({@link KvEventConsumer}, {@link ReplicaSyncConsumer}):
 * its sessions, run by {@link SessionLoop} until {@link #close}; the waits a close ends at once (a back-off, a wait for
 * the topic, for a full writer); the latch a session counts down once positioned; and the session's client, which a
 * close wakes from a blocked poll (never an interrupt: it would break the client's own close). An {@link Error} ends
 * the thread for good, recorded in {@link #stopped()}.
 */
final class ConsumerThread {

    private final Thread thread;
    private final CountDownLatch assigned = new CountDownLatch(1);
    private final CountDownLatch stopSignal = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile KafkaConsumer<?, ?> consumer;
    private final PartStop stop;

    /**
     * @param part       the owner in messages ({@code kv consumer})
     * @param session    one session: builds its client, hands it to {@link #consumer}, reads until stopped or failed
     * @param restarting what the owner does about a failed session (count, log) before the back-off
     * @param doing      what the session is doing, named when an Error stops it (called on the thread)
     */
    ConsumerThread(String name, String part, Runnable session, SessionLoop.Restarting restarting,
                   Supplier<String> doing) {
        this.stop = new PartStop(part);
        this.thread = new Thread(() -> SessionLoop.run(this::running, session, restarting, e -> {
            running = false;
            stop.record(e, doing.get());
        }, this::pause), name);
        this.thread.setDaemon(true);
    }

    /**
     * Stops the thread for good from within its session, for a cause no new session would cure (the index writer
     * has stopped): recorded as an Error's would be; the caller then returns from its session.
     */
    void stopFor(Throwable cause, String doing) {
        running = false;
        stop.record(cause, doing);
    }

    /** Why an Error stopped the thread for good, or null. */
    String stopped() {
        return stop.why();
    }

    void start() {
        thread.start();
    }

    /** False once closed (or interrupted). */
    boolean running() {
        return running;
    }

    /** Waits {@code millis} or until close(); false when closed. Never interrupts a Kafka client. */
    boolean pause(long millis) {
        try {
            return !stopSignal.await(millis, TimeUnit.MILLISECONDS) && running;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
            return false;
        }
    }

    /** The session's client from now on (null when it ends), for close() to wake. */
    void consumer(KafkaConsumer<?, ?> c) {
        consumer = c;
    }

    /** The session is assigned and positioned. */
    void assigned() {
        assigned.countDown();
    }

    /** Waits until a session is assigned and positioned. */
    boolean awaitAssigned(Duration timeout) throws InterruptedException {
        return assigned.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Stops the sessions: ends a wait, wakes a blocked poll, and waits up to 10 s for the thread, even when the caller is
     * interrupted (its interrupt kept).
     */
    void close() {
        running = false;
        stopSignal.countDown();
        KafkaConsumer<?, ?> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        Uninterrupted.join(thread, 10_000);
    }
}
