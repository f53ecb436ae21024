package io.tierroute.selector.ingest;

import io.tierroute.selector.index.PrefixIndex;
import io.tierroute.selector.protocol.KvEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The index's single writer thread, fed by a bounded queue: engine event batches (HTTP, Kafka),
 * the selector's approximate inserts and their releases, and expiry ticks. Producers never block: a full queue refuses
 * event batches (back-pressure to the sender) and drops approximate inserts (counted).
 *
 * <p>An {@link Error} on the writer thread (an {@link OutOfMemoryError} growing a table) leaves the index in a state
 * nobody can vouch for: the writer logs it, stops, and the pipeline is {@link #failure() failed} for good. Event batches
 * are then refused with {@link IllegalStateException} naming the failure (not a "full" that invites retries forever),
 * hints are dropped (counted), and health and metrics can read {@link #failure()}.
 */
public final class KvEventPipeline implements IndexWriter {

    private static final Logger log = LoggerFactory.getLogger(KvEventPipeline.class);

    private sealed interface Command permits Events, Routed, Released, Expire {}
    private record Events(List<KvEvent> events) implements Command {}
    private record Routed(int worker, long[] hashes, int blocks, long nowNanos, long ttlNanos) implements Command {}
    private record Released(int worker, long[] hashes, int blocks, long nowNanos, long ttlNanos) implements Command {}
    private record Expire(long nowNanos) implements Command {}

    private final PrefixIndex index;
    private final ArrayBlockingQueue<Command> queue;
    private final Thread writer;
    private final AtomicLong applied = new AtomicLong();
    private final AtomicLong droppedRouted = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong processed = new AtomicLong();
    private volatile boolean running = true;
    /** What stopped the writer, or null while it runs (set once, on the writer thread). */
    private volatile String failure;
    /** The command or engine event the writer is applying (its thread alone reads and writes it): named on a failure. */
    private Object current;

    /** @param capacity commands the queue holds before producers are refused */
    public KvEventPipeline(PrefixIndex index, int capacity) {
        this.index = index;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.writer = new Thread(this::run, "tierroute-index-writer");
        this.writer.setDaemon(true);
        this.writer.start();
    }

    /**
     * @throws IllegalStateException when the writer has {@link #failure() failed}: nothing would ever apply them
     */
    @Override
    public boolean submit(List<KvEvent> events) {
        if (enqueue(new Events(events))) {
            return true;
        }
        String why = failure;
        if (why != null) {
            throw new IllegalStateException("the index writer has stopped (" + why + "): KV events are not applied "
                    + "until the selector restarts");
        }
        return false;
    }

    @Override
    public void routed(int worker, long[] blockHashes, int blocks, long nowNanos, long ttlNanos) {
        if (!enqueue(new Routed(worker, blockHashes, blocks, nowNanos, ttlNanos))) {
            droppedRouted.incrementAndGet();
        }
    }

    @Override
    public void released(int worker, long[] blockHashes, int blocks, long nowNanos, long ttlNanos) {
        if (!enqueue(new Released(worker, blockHashes, blocks, nowNanos, ttlNanos))) {
            droppedRouted.incrementAndGet(); // the claims lapse at their TTL, as before releases existed
        }
    }

    @Override
    public void expire(long nowNanos) {
        enqueue(new Expire(nowNanos)); // a refused tick is harmless: the next one comes soon
    }

    @Override
    public long droppedRouted() {
        return droppedRouted.get();
    }

    @Override
    public long appliedEvents() {
        return applied.get();
    }

    /** Events (and routed or expiry commands) that threw while being applied (logged); they never stop the writer. */
    public long failedEvents() {
        return failed.get();
    }

    /**
     * Why the writer thread stopped (an error it could not survive, e.g. {@code java.lang.OutOfMemoryError: Java heap
     * space, applying a Stored event of worker 3}), or null while it runs. The index keeps what it held; it takes no
     * more events.
     */
    @Override
    public String failure() {
        return failure;
    }

    /** Whether the writer thread is still alive (tests: a failed writer does not spin). */
    boolean writerAlive() {
        return writer.isAlive();
    }

    /** Commands waiting for the writer. */
    public int backlog() {
        return queue.size();
    }

    /** Waits until every command accepted before this call has been applied (tests, shutdown); false if never. */
    public boolean awaitIdle(long timeout, TimeUnit unit) throws InterruptedException {
        long target = accepted.get();
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (processed.get() < target) {
            if (System.nanoTime() > deadline || failure != null) {
                return false;
            }
            Thread.sleep(1);
        }
        return true;
    }

    private boolean enqueue(Command c) {
        if (!running || failure != null) {
            return false; // closed or failed: nobody would apply it
        }
        // Count before offering so `processed` can never overtake `accepted`.
        accepted.incrementAndGet();
        if (queue.offer(c)) {
            // A close() between the check above and the offer may have let the writer finish without it: take it back
            // (if the writer took it, it is applied).
            if ((!running || failure != null) && queue.remove(c)) {
                accepted.decrementAndGet();
                return false;
            }
            return true;
        }
        accepted.decrementAndGet();
        return false;
    }

    private void run() {
        List<Command> batch = new ArrayList<>(256);
        while (running || !queue.isEmpty()) {
            try {
                Command first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, 255);
                for (Command c : batch) {
                    current = c;
                    apply(c);
                }
                current = null;
                processed.addAndGet(batch.size());
                batch.clear();
            } catch (InterruptedException e) {
                // close() interrupts a waiting poll; the loop condition still drains what was accepted.
            } catch (Throwable t) {
                // An Error (apply() catches each event's and command's RuntimeException): the index may be half-way
                // through a change and the same command would fail again. Stop, say so once, refuse what would never
                // be applied; looping on would spin on a full queue or a heap that has run out.
                stop(t, batch);
                return;
            }
        }
    }

    private void stop(Throwable t, List<Command> batch) {
        String what = current instanceof KvEvent e ? "applying a " + e.getClass().getSimpleName() + " event of worker "
                + e.worker() : current != null ? "applying a " + current.getClass().getSimpleName() + " command"
                : "between commands";
        failure = t + ", " + what;
        int discarded = batch.size() + queue.size();
        queue.clear();
        try {
            log.error("index writer stopped by {}, {}; the prefix index takes no more KV events ({} accepted commands "
                    + "discarded) and KV posts are refused until the selector restarts", t.toString(), what, discarded, t);
        } catch (Throwable ignored) {
            // Out of memory even to log: the failure stays readable by health and metrics.
        }
    }

    private void apply(Command c) {
        if (c instanceof Events ev) {
            // One at a time: an event that throws must not take the rest of its batch with it (logged once a batch).
            int failures = 0;
            for (KvEvent e : ev.events()) {
                current = e;
                try {
                    index.apply(e);
                    applied.incrementAndGet();
                } catch (RuntimeException ex) {
                    if (failures++ == 0) {
                        failed(e.getClass().getSimpleName() + " event of worker " + e.worker() + " (logged once a "
                                + "batch; failedEvents counts every one)", ex);
                    } else {
                        failed.incrementAndGet();
                    }
                }
            }
            return;
        }
        try {
            if (c instanceof Routed r) {
                index.recordRouted(r.worker(), r.hashes(), r.blocks(), r.nowNanos(), r.ttlNanos());
            } else if (c instanceof Released r) {
                index.releaseRouted(r.worker(), r.hashes(), r.blocks(), r.nowNanos(), r.ttlNanos());
            } else if (c instanceof Expire x) {
                index.expire(x.nowNanos());
            }
        } catch (RuntimeException ex) {
            failed(c.getClass().getSimpleName(), ex);
        }
    }

    private void failed(String what, RuntimeException e) {
        failed.incrementAndGet();
        log.error("index writer could not apply {}: {}", what, e.toString());
    }

    @Override
    public void close() {
        running = false;
        writer.interrupt();
        try {
            writer.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
