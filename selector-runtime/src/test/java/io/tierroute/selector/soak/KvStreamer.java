package io.tierroute.selector.soak;

import java.net.URI;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Posts {@link KvChurn} batches to POST /v1/kv-events at a steady rate from one thread. A 503 (the
 * index writer is saturated) is the documented back-pressure: the same batch is retried shortly and
 * counted; any other answer but 202 is a failure.
 */
final class KvStreamer implements AutoCloseable {

    private final SoakHttp http = new SoakHttp(1);
    private final URI uri;
    private final KvChurn churn;
    private final String workerPrefix;
    private final Thread thread;
    private volatile double batchesPerSecond;
    private volatile boolean stop;
    final AtomicLong batches = new AtomicLong(), events = new AtomicLong(), freshBlocks = new AtomicLong();
    final AtomicLong refused = new AtomicLong(), failed = new AtomicLong();
    final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();

    KvStreamer(URI base, KvChurn churn, String workerPrefix) {
        this.uri = base.resolve("/v1/kv-events");
        this.churn = churn;
        this.workerPrefix = workerPrefix;
        this.thread = new Thread(this::loop, "soak-kv");
        thread.setDaemon(true);
    }

    /** Starts streaming; {@code 0} means as fast as the server accepts. */
    void start(double batchesPerSecond) {
        this.batchesPerSecond = batchesPerSecond;
        thread.start();
    }

    void rate(double batchesPerSecond) {
        this.batchesPerSecond = batchesPerSecond;
    }

    private void loop() {
        long next = System.nanoTime();
        while (!stop) {
            KvChurn.Batch b = churn.next(workerPrefix);
            try {
                while (!stop) {
                    SoakHttp.Answer r = http.post(uri, b.json());
                    if (r == null) {
                        fail("kv-events: no answer (the connection closed before any byte)");
                        break;
                    }
                    if (r.status() == 202) {
                        batches.incrementAndGet();
                        events.addAndGet(b.events());
                        freshBlocks.addAndGet(b.freshBlocks());
                        break;
                    }
                    if (r.status() == 503) {
                        refused.incrementAndGet();
                        LockSupport.parkNanos(5_000_000);
                        continue;
                    }
                    fail("kv-events answered " + r.status() + ": " + r.body());
                    break;
                }
            } catch (Exception e) {
                if (!stop) {
                    fail("kv-events: " + e);
                }
            }
            double rate = batchesPerSecond;
            if (rate > 0) {   // pace by schedule, without catching up a backlog in a burst after a stall
                next = Math.max(next + (long) (1e9 / rate), System.nanoTime() - 100_000_000L);
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
            } else {
                next = System.nanoTime();
            }
        }
    }

    private void fail(String what) {
        if (failed.incrementAndGet() <= 10) {
            failures.add(what);
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        thread.join(35_000);
        try {
            http.close();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
