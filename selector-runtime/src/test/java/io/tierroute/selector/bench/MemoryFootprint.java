package io.tierroute.selector.bench;

import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.config.SelectorConfig;
import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.scheduling.RouteRequest;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.sequences.InFlightTracker;
import io.tierroute.selector.server.SelectorServer;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.IntFunction;

/**
 * Retained heap per indexed block and per in-flight request (issue 8, endurance), measured as the
 * difference of heap used after full GCs (MemoryMXBean) with and without the structure, divided by
 * its size. Index: the real {@link RunPrefixIndex} (64 workers) filled with N distinct blocks in
 * several shapes. In flight: the real {@link InFlightTracker}, and a whole {@link Selector} in an
 * in-process server routing M requests nobody finishes. Prints one table row per case.
 * Run (after bin/tierroute built the jar): java -Xmx3g -cp cli/target/tierroute.jar \
 *     selector-runtime/src/test/java/io/tierroute/selector/bench/MemoryFootprint.java
 */
public final class MemoryFootprint {

    static final int WORKERS = 64;
    static final MemoryMXBean MEM = ManagementFactory.getMemoryMXBean();

    public static void main(String[] args) throws Exception {
        System.out.printf("# %s, %s, max heap %d MiB, compressed oops %s%n", System.getProperty("java.vm.name"),
                System.getProperty("java.version"), Runtime.getRuntime().maxMemory() >> 20,
                ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class)
                        .getVMOption("UseCompressedOops").getValue());
        System.out.println("| structure | shape | size | retained MiB | bytes per item |");
        System.out.println("|---|---|---:|---:|---:|");
        int[] sizes = {250_000, 1_000_000, 2_000_000};
        for (int n : new int[] {250_000, 1_000_000, 2_000_000, 4_000_000, 8_000_000}) {
            index("distinct 512-block prompts, 1 holder (HBM)", n, 512, 0, 1, false);
        }
        for (int n : sizes) {
            index("distinct 512-block prompts, 8 holders (HBM)", n, 512, 0, 8, false);
        }
        for (int n : sizes) {
            index("distinct 512-block prompts, 1 holder, half moved to CPU", n, 512, 0, 1, true);
        }
        for (int n : sizes) {
            index("448-block prefix shared by 64 prompts (one per worker) + 64-block suffixes", n, 512, 448, 1, false);
        }
        for (int n : sizes) {
            index("distinct 16-block prompts, 1 holder (HBM)", n, 16, 0, 1, false);
        }
        for (int cap : new int[] {500_000, 1_000_000}) {
            atCap(cap);
        }
        for (int m : new int[] {10_000, 100_000, 400_000}) {
            tracker(m);
        }
        for (int m : new int[] {10_000, 100_000}) {
            selector(m);
        }
    }

    /**
     * Fills an index with about {@code n} distinct blocks: prompts of {@code promptBlocks}, the first
     * {@code sharedPrefix} of them common to 64 consecutive prompts, each stored by {@code holders}
     * workers; with {@code moveHalf}, every other prompt's second half is moved from HBM to CPU.
     */
    static void index(String shape, int n, int promptBlocks, int sharedPrefix, int holders, boolean moveHalf) {
        SplittableRandom rnd = new SplittableRandom(n * 31L + promptBlocks);
        long base = heapAfterGc();
        RunPrefixIndex index = RunPrefixIndex.builder().workers(WORKERS).maxBlocks(Long.MAX_VALUE / 2).build();
        long[] prefix = new long[sharedPrefix];
        for (int p = 0; index.blockCount() < n; p++) {
            if (p % 64 == 0) {
                Arrays.setAll(prefix, i -> rnd.nextLong());
            }
            long[] h = new long[promptBlocks];
            for (int i = 0; i < promptBlocks; i++) {
                h[i] = i < sharedPrefix ? prefix[i] : rnd.nextLong();
            }
            for (int k = 0; k < holders; k++) {
                index.apply(new KvEvent.Stored((p + k * 7) % WORKERS, Tier.HBM, false, 0, h));
            }
            if (moveHalf && p % 2 == 0) {
                index.apply(new KvEvent.Moved(p % WORKERS, Tier.HBM, Tier.CPU,
                        Arrays.copyOfRange(h, promptBlocks / 2, promptBlocks)));
            }
        }
        long used = heapAfterGc() - base;
        row("RunPrefixIndex", shape + ", " + index.runCount() + " runs", index.blockCount(), "blocks", used);
        Reference.reachabilityFence(index);
    }

    /**
     * The state a soak leaves: an index capped at {@code cap} after 4 × cap fresh blocks streamed in
     * 64-block prompts, every other one removed 8 prompts later (removals leave tombstones in the table
     * until it is rebuilt; the cap prunes the rest).
     */
    static void atCap(int cap) {
        SplittableRandom rnd = new SplittableRandom(cap);
        long base = heapAfterGc();
        RunPrefixIndex index = RunPrefixIndex.builder().workers(WORKERS).maxBlocks(cap).build();
        long[][] recent = new long[9][];
        for (int p = 0; (long) p * 64 < 4L * cap; p++) {
            long[] h = new long[64];
            Arrays.setAll(h, i -> rnd.nextLong());
            recent[p % 9] = h;
            index.apply(new KvEvent.Stored(p % WORKERS, Tier.HBM, false, 0, h));
            if (p >= 8 && p % 2 == 0) {
                long[] old = recent[(p - 8) % 9];
                index.apply(new KvEvent.Removed((p - 8) % WORKERS, Tier.HBM, old));
            }
        }
        long used = heapAfterGc() - base;
        row("RunPrefixIndex", "at its cap of " + cap + " after " + 4 * cap + " fresh blocks streamed (64-block prompts, half removed), "
                + index.runCount() + " runs", index.blockCount(), "blocks", used);
        Reference.reachabilityFence(index);
    }

    /** {@code m} requests admitted to a 64-worker tracker, ids like the benchmark's ("x65f1c2a-1-123456"). */
    static void tracker(int m) {
        long base = heapAfterGc();
        long[] kv = new long[WORKERS];
        Arrays.fill(kv, 400_000);
        InFlightTracker t = new InFlightTracker(kv, Long.MAX_VALUE / 4, Long.MAX_VALUE / 4);
        long now = System.nanoTime();
        for (int i = 0; i < m; i++) {
            t.admit(id(i), i % WORKERS, 8000, 32, 3200, new long[] {0, 4800, 0, 0}, now);
        }
        long used = heapAfterGc() - base;
        row("InFlightTracker", "admitted, not finished", t.size(), "requests", used);
        Reference.reachabilityFence(t);
    }

    /**
     * {@code m} requests routed by the selector of a real server (examples/selector-64.yaml's workers,
     * requests kept for an hour): everything the selector keeps per request in flight.
     */
    static void selector(int m) throws Exception {
        Path dir = Files.createTempDirectory("footprint");
        SelectorConfig config = ConfigLoader.parse("""
                model: {name: qwen3-32b, blockSize: 16, bytesPerToken: 262144}
                defaults: {kvCapacityTokens: 400000, tiers: {cpu: 64e9, nvme: 7e9}}
                workers: {count: 64, namePrefix: w}
                routing: {requestMaxAge: 1h, defaultMaxTokens: 64}
                """, dir);
        try (SelectorServer server = SelectorServer.start(config.withServer(config.server().withPort(0)
                .withHost("127.0.0.1")), null, false)) {
            Selector s = server.selector();
            IntFunction<long[]> prompt = p -> {   // 500 block ids, a 300-block prefix shared by a group of 8
                long[] ids = new long[500];
                Arrays.setAll(ids, i -> i < 300 ? (p % 32) * 1_000_000L + i : 1_000_000_000L + p * 1_000L + i);
                return ids;
            };
            long[][] prompts = new long[256][];
            Arrays.setAll(prompts, prompt::apply);
            long base = heapAfterGc();
            for (int i = 0; i < m; i++) {
                s.route(new RouteRequest(id(i), null, null, null, null, prompts[i % prompts.length], null, 8000, 64,
                        null, null, false)).join();
            }
            long used = heapAfterGc() - base;
            row("Selector (server)", "routed, not finished, 500-block prompts", s.inflight().size(), "requests", used);
        }
    }

    static String id(int i) {
        return "x65f1c2a-" + (i & 1) + "-" + i;
    }

    static void row(String structure, String shape, long size, String unit, long bytes) {
        System.out.printf("| %s | %s | %,d %s | %.1f | %.1f |%n", structure, shape, size, unit, bytes / 1048576.0,
                bytes / (double) size);
    }

    /** Heap used after full GCs, repeated until two readings agree within 256 KiB (finalizers, soft refs). */
    static long heapAfterGc() {
        long prev = Long.MAX_VALUE;
        for (int i = 0; i < 10; i++) {
            MEM.gc();
            long used = MEM.getHeapMemoryUsage().getUsed();
            if (Math.abs(prev - used) < 256 * 1024) {
                return used;
            }
            prev = used;
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return prev;
    }
}
