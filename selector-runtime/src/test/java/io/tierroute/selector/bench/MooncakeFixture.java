package io.tierroute.selector.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.tierroute.selector.index.PrefixIndex;
import io.tierroute.selector.protocol.BlockHasher;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;


/**
 * Index inputs from the Mooncake conversation trace ({@code traces/mooncake/conversation_trace.jsonl}):
 * every 512-token trace block id expands into 32 blocks of 16 synthetic tokens derived from the id, so
 * equal ids give equal tokens and the chained hashes share exactly the trace's prefixes. Requests go
 * to workers by a hash of their index (see {@link #indexEvents} for the events, including CPU-tier
 * holdings). Query prompts are the first 8,000 tokens of trace
 * requests that long (so their match depth reflects the trace's real sharing).
 *
 * <p>The trace path is {@code -Dtierroute.mooncake=...}; by default {@code ../shared/traces/...}
 * resolved from the repository root (the directory holding {@code selector-runtime/}).
 */
public final class MooncakeFixture {

    public static final int TRACE_BLOCK_TOKENS = 512;
    public static final int BLOCK_SIZE = 16;
    public static final int SUB_BLOCKS = TRACE_BLOCK_TOKENS / BLOCK_SIZE;
    public static final int QUERY_TOKENS = 8_000;
    public static final long SALT = BlockHasher.salt("mooncake-synthetic", null, null);

    /** Trace requests in file order: their block ids. */
    public final List<long[]> requests;

    private MooncakeFixture(List<long[]> requests) {
        this.requests = requests;
    }

    public static MooncakeFixture load() {
        Path path = tracePath();
        ObjectMapper json = new ObjectMapper();
        List<long[]> requests = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode ids = json.readTree(line).get("hash_ids");
                long[] r = new long[ids.size()];
                for (int i = 0; i < r.length; i++) {
                    r[i] = ids.get(i).asLong();
                }
                requests.add(r);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the Mooncake trace at " + path
                    + " (set -Dtierroute.mooncake=<path to conversation_trace.jsonl>)", e);
        }
        return new MooncakeFixture(requests);
    }

    static Path tracePath() {
        String configured = System.getProperty("tierroute.mooncake");
        if (configured != null) {
            return Paths.get(configured);
        }
        Path dir = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent()) {
            if (Files.isDirectory(d.resolve("selector-runtime")) && Files.exists(d.resolve("pom.xml"))) {
                return d.resolve("../shared/traces/mooncake/conversation_trace.jsonl").normalize();
            }
        }
        return dir.resolve("../shared/traces/mooncake/conversation_trace.jsonl").normalize();
    }

    /** Synthetic tokens of trace blocks {@code ids[0, idCount)}: 512 per id, derived from the id alone. */
    public static int[] tokens(long[] ids, int idCount) {
        int[] t = new int[idCount * TRACE_BLOCK_TOKENS];
        for (int b = 0; b < idCount; b++) {
            long x = ids[b] * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
            for (int k = 0; k < TRACE_BLOCK_TOKENS; k++) {
                x += 0x9E3779B97F4A7C15L;
                long z = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
                z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
                t[b * TRACE_BLOCK_TOKENS + k] = (int) ((z ^ (z >>> 31)) & 0x1FFFF); // vocabulary of 131k
            }
        }
        return t;
    }

    /** Chained block hashes (block size 16) of a whole request. */
    public static long[] blockHashes(long[] ids, BlockHasher hasher) {
        int[] t = tokens(ids, ids.length);
        long[] out = new long[ids.length * SUB_BLOCKS];
        hasher.hashTokens(t, t.length, BLOCK_SIZE, SALT, out);
        return out;
    }

    public static int workerOf(int request, int workers) {
        return (int) Long.remainderUnsigned((request + 1) * 0x9E3779B97F4A7C15L >>> 17, workers);
    }

    /**
     * The events that index trace requests {@code 0..} until at least {@code minBlocks} distinct blocks
     * are stored, as engines would send them: per request, a Stored on HBM for the blocks its worker
     * does not hold yet (one event per stretch of at most 32 blocks, i.e. per 512-token trace block,
     * with its parent); every 4th request then has the second half of its blocks Moved from HBM to
     * CPU, and every 10th has the first half stored on the next worker's CPU. With {@code window > 0}
     * each request's HBM blocks are Removed again {@code window} requests later (eviction), so the
     * index stays at a steady size. Returns the number of requests used.
     */
    public int indexEvents(int workers, long minBlocks, int window, Consumer<KvEvent> sink) {
        BlockHasher hasher = new BlockHasher();
        java.util.HashSet<Long> seen = new java.util.HashSet<>();
        List<java.util.HashSet<Long>> hbm = new ArrayList<>();
        List<java.util.HashSet<Long>> cpu = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            hbm.add(new java.util.HashSet<>());
            cpu.add(new java.util.HashSet<>());
        }
        List<long[]> storedOnHbm = new ArrayList<>();
        int r = 0;
        for (; r < requests.size() && seen.size() < minBlocks; r++) {
            long[] h = blockHashes(requests.get(r), hasher);
            for (long x : h) {
                seen.add(x);
            }
            int w = workerOf(r, workers);
            storedOnHbm.add(emitNew(sink, w, Tier.HBM, h, 0, h.length, hbm.get(w)));
            if (r % 4 == 0 && h.length >= 2) {
                long[] moved = java.util.Arrays.stream(java.util.Arrays.copyOfRange(h, h.length / 2, h.length))
                        .filter(x -> hbm.get(w).remove(x)).toArray();
                if (moved.length > 0) {
                    sink.accept(new KvEvent.Moved(w, Tier.HBM, Tier.CPU, moved));
                    for (long x : moved) {
                        cpu.get(w).add(x);
                    }
                }
            }
            if (r % 10 == 0 && workers > 1) {
                emitNew(sink, (w + 1) % workers, Tier.CPU, h, 0, h.length / 2, cpu.get((w + 1) % workers));
            }
            if (window > 0 && r >= window) {
                int old = r - window;
                int ow = workerOf(old, workers);
                long[] evict = java.util.Arrays.stream(storedOnHbm.get(old)).filter(x -> hbm.get(ow).remove(x)).toArray();
                storedOnHbm.set(old, null);
                if (evict.length > 0) {
                    sink.accept(new KvEvent.Removed(ow, Tier.HBM, evict));
                }
            }
        }
        if (seen.size() < minBlocks) {
            throw new IllegalStateException("trace has only " + seen.size() + " distinct blocks");
        }
        return r;
    }

    /** Emits Stored events for the blocks of {@code h[from, to)} not in {@code held}; returns them. */
    private static long[] emitNew(Consumer<KvEvent> sink, int w, Tier tier, long[] h, int from, int to,
                                  java.util.Set<Long> held) {
        long[] added = new long[to - from];
        int count = 0;
        int s = from;
        while (s < to) {
            while (s < to && held.contains(h[s])) {
                s++;
            }
            int e = s;
            while (e < to && e - s < SUB_BLOCKS && !held.contains(h[e])) {
                held.add(h[e]);
                added[count++] = h[e];
                e++;
            }
            if (e > s) {
                sink.accept(new KvEvent.Stored(w, tier, s > 0, s > 0 ? h[s - 1] : 0, java.util.Arrays.copyOfRange(h, s, e)));
            }
            s = e;
        }
        return java.util.Arrays.copyOf(added, count);
    }

    /** Builds {@code index} from {@link #indexEvents}; returns the number of requests indexed. */
    public int populate(PrefixIndex index, int workers, long minBlocks) {
        return indexEvents(workers, minBlocks, 0, index::apply);
    }

    /**
     * {@code count} query prompts of {@link #QUERY_TOKENS} tokens: the first 8,000 tokens of trace
     * requests at least that long among the first {@code fromFirst}, drawn with {@code seed}.
     */
    public int[][] queries(int count, long seed, int fromFirst) {
        int minIds = (QUERY_TOKENS + TRACE_BLOCK_TOKENS - 1) / TRACE_BLOCK_TOKENS;
        List<long[]> longEnough = new ArrayList<>();
        for (long[] r : requests.subList(0, Math.min(fromFirst, requests.size()))) {
            if (r.length >= minIds) {
                longEnough.add(r);
            }
        }
        SplittableRandom rnd = new SplittableRandom(seed);
        int[][] q = new int[count][];
        for (int i = 0; i < count; i++) {
            q[i] = java.util.Arrays.copyOf(tokens(longEnough.get(rnd.nextInt(longEnough.size())), minIds), QUERY_TOKENS);
        }
        return q;
    }
}
