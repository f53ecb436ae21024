package io.tierroute.selector.kafka;

import org.apache.kafka.clients.consumer.KafkaConsumer;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The thread of a consumer that reads one topic with no group ({@link KvEventConsumer}, {@link ReplicaSyncConsumer}):
 * its sessions, run by {@link SessionLoop} until {@link #close}; the waits a close ends at once (a back-off, a wait for
 * the topic, for a full writer); the latch a session counts down once positioned; and the session's client, which a
 * close wakes from a blocked poll (never an interrupt: it would break the client's own close).
 */
final class ConsumerThread {

    private final Thread thread;
    private final CountDownLatch assigned = new CountDownLatch(1);
    private final CountDownLatch stopSignal = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile KafkaConsumer<?, ?> consumer;

    /**
     * @param session    one session: builds its client, hands it to {@link #consumer}, reads until stopped or failed
     * @param restarting what the owner does about a failed session (count, log) before the back-off
     */
    ConsumerThread(String name, Runnable session, SessionLoop.Restarting restarting) {
        this.thread = new Thread(() -> SessionLoop.run(this::running, session, restarting, this::pause), name);
        this.thread.setDaemon(true);
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

    /** Stops the sessions: ends a wait, wakes a blocked poll, and waits up to 10 s for the thread. */
    void close() {
        running = false;
        stopSignal.countDown();
        KafkaConsumer<?, ?> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
