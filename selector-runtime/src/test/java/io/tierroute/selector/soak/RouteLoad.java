package io.tierroute.selector.soak;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Closed-loop route clients: each thread routes a prompt, then reports the request finished, as an
 * agent gateway would. Counts routes and their latency per phase (the test moves {@link #phase}
 * along); a route that does not answer 200, or a finish that does not answer 200, is a failure.
 */
final class RouteLoad implements AutoCloseable {

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
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
                HttpResponse<String> r = send(post(route, body));
                if (r == null) {
                    continue; // answer lost, counted in lostAnswers
                }
                long micros = (System.nanoTime() - t0) / 1_000;
                if (r.statusCode() != 200) {
                    fail("route " + id + " answered " + r.statusCode() + ": " + r.body());
                    continue;
                }
                if (p >= 0 && p == phase && p < routes.length) {   // the whole call inside one phase
                    routes[p].incrementAndGet();
                    latencyMicros[p].recordValue(Math.min(micros, 60_000_000L));
                }
                HttpResponse<String> f = send(post(events, "{\"request_id\":\"" + id + "\",\"type\":\"finished\"}"));
                if (f != null && f.statusCode() != 200) {
                    fail("finish " + id + " answered " + f.statusCode() + ": " + f.body());
                }
            } catch (Exception e) {
                if (!stop) {
                    fail("route " + id + ": " + e);
                }
            }
        }
    }

    /**
     * One call. A connection closed before any byte of the answer (the JDK client's "header parser
     * received no bytes") is counted apart, not resent: in runs on a loaded 2-core machine 0–3 calls in
     * about 10^5 ended so, one of them a route the server had admitted (a resend answered 409 "already in
     * flight"), so an answer was lost between the handler and the socket: an open defect (answering on the
     * exchange's own I/O thread did not remove it) that the test bounds rather than hides.
     */
    private HttpResponse<String> send(HttpRequest req) throws java.io.IOException, InterruptedException {
        try {
            return client.send(req, HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            if (e.getMessage() != null && e.getMessage().contains("received no bytes")) {
                lostAnswers.incrementAndGet();
                return null;
            }
            throw e;
        }
    }

    /** Calls whose connection closed before any answer byte (see {@link #send}). */
    final AtomicLong lostAnswers = new AtomicLong();

    /** Route requests started so far. */
    long sent() {
        return ids.get();
    }

    private static HttpRequest post(URI uri, String body) {
        return HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
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
    }
}
