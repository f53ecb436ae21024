import io.tierroute.selector.protocol.BlockHasher;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * KV events for the soak (bench/run-soak.sh): a steady stream of POST /v1/kv-events batches over
 * fresh prompts across all workers, as engines under load report them. For its worker, each batch
 * stores a new prompt on HBM (a 16-block group prefix + 48 blocks never seen before), moves the
 * fresh blocks it stored 4 batches earlier to CPU, and every other time removes from CPU those it
 * stored 8 batches earlier: half of every prompt stays, so the index grows until its cap prunes it.
 * First FILL fresh blocks go as fast as the server takes them (prints "filled"), then RATE batches/s
 * for SECONDS. THREADS senders each own the workers w with w % THREADS == t, so each worker's events
 * stay in order. A 503 (index writer saturated) is retried after 5 ms and counted.
 * Run: java -cp cli/target/tierroute.jar bench/wrk/KvStream.java URL MODEL WORKERS RATE FILL SECONDS [THREADS]
 */
public class KvStream {
    static final int PREFIX = 16, FRESH = 48, GROUPS = 8, MOVE_LAG = 4, REMOVE_LAG = 8;

    static final AtomicLong batches = new AtomicLong(), events = new AtomicLong(), fresh = new AtomicLong();
    static final AtomicLong refused = new AtomicLong(), failed = new AtomicLong();

    public static void main(String[] args) throws Exception {
        String base = args[0], model = args[1];
        int workers = Integer.parseInt(args[2]);
        double rate = Double.parseDouble(args[3]);
        long fill = Long.parseLong(args[4]);
        long seconds = Long.parseLong(args[5]);
        int threads = args.length > 6 ? Integer.parseInt(args[6]) : 2;
        long salt = BlockHasher.salt(model, null, null);
        URI uri = URI.create(base + "/v1/kv-events");

        long t0 = System.nanoTime();
        Thread[] senders = new Thread[threads];
        for (int t = 0; t < threads; t++) {   // fill: every sender until the fresh blocks reach FILL
            Sender s = new Sender(uri, salt, workers, threads, t);
            senders[t] = new Thread(() -> s.run(0, () -> fresh.get() < fill));
            senders[t].start();
        }
        for (Thread s : senders) {
            s.join();
        }
        System.out.printf("filled: %d fresh blocks in %d batches, %.1f s%n", fresh.get(), batches.get(),
                (System.nanoTime() - t0) / 1e9);
        System.out.flush();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        for (int t = 0; t < threads; t++) {
            Sender s = new Sender(uri, salt, workers, threads, t + threads * 1000L);
            senders[t] = new Thread(() -> s.run(rate / threads, () -> System.nanoTime() < end));
            senders[t].start();
        }
        for (Thread s : senders) {
            s.join();
        }
        System.out.printf("done: %d batches, %d events, %d fresh blocks, %d refused (503, retried), %d failed%n",
                batches.get(), events.get(), fresh.get(), refused.get(), failed.get());
        System.exit(failed.get() == 0 ? 0 : 1);
    }

    static final class Sender {
        final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        final URI uri;
        final long salt, stream;
        final int workers, stride, first;
        final BlockHasher hasher = new BlockHasher();
        final long[][][] recent;   // per worker: fresh hashes of its last REMOVE_LAG + 1 prompts
        long batch;

        Sender(URI uri, long salt, int workers, int stride, long stream) {
            this.uri = uri;
            this.salt = salt;
            this.workers = workers;
            this.stride = stride;
            this.first = (int) (stream % stride);
            this.stream = stream;
            this.recent = new long[workers][REMOVE_LAG + 1][];
        }

        void run(double perSecond, java.util.function.BooleanSupplier go) {
            long next = System.nanoTime();
            while (go.getAsBoolean()) {
                post(nextBatch());
                if (perSecond > 0) {   // on schedule; after a stall, no burst to catch up
                    next = Math.max(next + (long) (1e9 / perSecond), System.nanoTime() - 100_000_000L);
                    long wait = next - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                }
            }
        }

        String[] nextBatch() {
            int mine = (workers - first + stride - 1) / stride;   // workers first, first + stride, ...
            long i = batch++;
            int w = first + (int) (i % mine) * stride;
            long k = i / mine;
            long[] ids = new long[PREFIX + FRESH];
            for (int j = 0; j < PREFIX; j++) {
                ids[j] = 500_000_000L + (k % GROUPS) * 10_000 + j;
            }
            for (int j = 0; j < FRESH; j++) {   // unique per (sender stream, batch): never stored before
                ids[PREFIX + j] = 4_000_000_000L + (stream * 1_000_000_000L + i) * 100 + j;
            }
            long[] h = new long[ids.length];
            hasher.hashBlockIds(ids, ids.length, salt, h);
            long[][] ring = recent[w];
            ring[(int) (k % ring.length)] = java.util.Arrays.copyOfRange(h, PREFIX, h.length);
            StringBuilder b = new StringBuilder(2048).append("{\"worker\":\"w").append(w)
                    .append("\",\"events\":[{\"type\":\"stored\",\"tier\":\"hbm\",\"block_hashes\":");
            list(b, h).append('}');
            int n = 1;
            if (k >= MOVE_LAG) {
                b.append(",{\"type\":\"moved\",\"from_tier\":\"hbm\",\"to_tier\":\"cpu\",\"block_hashes\":");
                list(b, ring[(int) ((k - MOVE_LAG) % ring.length)]).append('}');
                n++;
            }
            if (k >= REMOVE_LAG && (k - REMOVE_LAG) % 2 == 0) {
                b.append(",{\"type\":\"removed\",\"tier\":\"cpu\",\"block_hashes\":");
                list(b, ring[(int) ((k - REMOVE_LAG) % ring.length)]).append('}');
                n++;
            }
            return new String[] {b.append("]}").toString(), Integer.toString(n)};
        }

        void post(String[] batch) {
            while (true) {
                try {
                    HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                            .header("content-type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(batch[0])).build(), HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 202) {
                        batches.incrementAndGet();
                        events.addAndGet(Integer.parseInt(batch[1]));
                        fresh.addAndGet(FRESH);
                        return;
                    }
                    if (r.statusCode() != 503) {
                        throw new IllegalStateException("answered " + r.statusCode() + ": " + r.body());
                    }
                    refused.incrementAndGet();
                    LockSupport.parkNanos(5_000_000);
                } catch (Exception e) {
                    if (failed.incrementAndGet() <= 10) {
                        System.err.println("kv-events: " + e);
                    }
                    return;
                }
            }
        }

        static StringBuilder list(StringBuilder b, long[] a) {
            b.append('[');
            for (int j = 0; j < a.length; j++) {
                b.append(j > 0 ? "," : "").append(a[j]);
            }
            return b.append(']');
        }
    }
}
