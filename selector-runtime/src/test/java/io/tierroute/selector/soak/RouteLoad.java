package io.tierroute.selector.soak;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.net.URI;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Closed-loop route clients: each thread routes a prompt, then reports the request finished, as an
 * agent gateway would. Counts routes and their latency per phase (the test moves {@link #phase}
 * along); a route that does not answer 200, or a finish that does not answer 200, is a failure, and a
 * call that got no answer at all is counted in {@link #lostAnswers} (see {@link SoakHttp}).
 */
final class RouteLoad implements AutoCloseable {

    private static final int MAX_CLIENTS = 64;

    private final SoakHttp http = new SoakHttp(MAX_CLIENTS);
    private final URI route, events;
    private final String[] prompts;
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final AtomicLong ids = new AtomicLong();
    final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    final AtomicLong failed = new AtomicLong();
    /** Phase the routes count toward; below 0 or at or past {@code phases}: not counted. */
    volatile int phase = -1;
    final AtomicLong[] routes;
    final Histogram[] latencyMicros;
    private volatile boolean stop;

    /** @param prompts JSON arrays of block ids, one per prompt */
    RouteLoad(URI base, String[] prompts, int blockSize, int phases) {
        this.route = base.resolve("/v1/route");
        this.events = base.resolve("/v1/requests/events");
        this.prompts = prompts.clone();
        for (int p = 0; p < prompts.length; p++) {
            int blocks = prompts[p].split(",").length;
            this.prompts[p] = "{\"max_tokens\":64,\"input_tokens\":" + blocks * blockSize + ",\"block_hashes\":"
                    + prompts[p] + ",\"request_id\":\"";
        }
        routes = new AtomicLong[phases];
        latencyMicros = new Histogram[phases];
        for (int i = 0; i < phases; i++) {
            routes[i] = new AtomicLong();
            latencyMicros[i] = new ConcurrentHistogram(60_000_000L, 2);
        }
    }

    void start(int count) {
        if (threads.size() + count > MAX_CLIENTS) {
            throw new IllegalArgumentException("at most " + MAX_CLIENTS + " route clients");
        }
        for (int t = 0; t < count; t++) {
            Thread th = new Thread(this::loop, "soak-route-" + t);
            th.setDaemon(true);
            threads.add(th);
            th.start();
        }
    }

    private void loop() {
        long n = 0;
        while (!stop) {
            String id = "soak-" + ids.incrementAndGet();
            String body = prompts[(int) (n++ % prompts.length)] + id + "\"}";
            int p = phase;
            long t0 = System.nanoTime();
            try {
                SoakHttp.Answer r = http.post(route, body);
                if (r == null) {
                    continue; // no answer, counted in lostAnswers
                }
                long micros = (System.nanoTime() - t0) / 1_000;
                if (r.status() != 200) {
                    fail("route " + id + " answered " + r.status() + ": " + r.body());
                    continue;
                }
                if (p >= 0 && p == phase && p < routes.length) {   // the whole call inside one phase
                    routes[p].incrementAndGet();
                    latencyMicros[p].recordValue(Math.min(micros, 60_000_000L));
                }
                SoakHttp.Answer f = http.post(events, "{\"request_id\":\"" + id + "\",\"type\":\"finished\"}");
                if (f != null && f.status() != 200) {
                    fail("finish " + id + " answered " + f.status() + ": " + f.body());
                }
            } catch (Exception e) {
                if (!stop) {
                    fail("route " + id + ": " + e);
                }
            }
        }
    }

    /** Calls whose connection closed before any answer byte. */
    final AtomicLong lostAnswers = http.lostAnswers;

    /** Route requests started so far. */
    long sent() {
        return ids.get();
    }

    private void fail(String what) {
        if (failed.incrementAndGet() <= 10) {
            failures.add(what);
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        for (Thread t : threads) {
            t.join(35_000);
        }
        try {
            http.close();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
