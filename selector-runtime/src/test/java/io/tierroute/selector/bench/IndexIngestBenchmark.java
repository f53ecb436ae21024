package io.tierroute.selector.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.index.PrefixIndex;
import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.protocol.KvEvent;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Event ingestion on one thread: replays, in a loop, the Mooncake event stream of
 * {@link MooncakeFixture#indexEvents} (Stored of the blocks a worker did not hold yet, at most 32 per
 * event with their parent; Moved HBM to CPU; CPU replicas; and, {@code window} requests later, the
 * Removed of each request's HBM blocks, so the index stays at a steady size). A fresh index per
 * iteration.
 * The primary figure is KvEvent objects per second; the aux counter {@code blocks} counts one event
 * per block hash carried (a Stored of 32 blocks = 32), which is how the 2 M events/s target counts;
 * {@code storedBlocks} counts only the blocks of Stored events (removals of whole runs are cheaper
 * per block than inserts).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+UseParallelGC"})
public class IndexIngestBenchmark {

    @Param({"64"})
    public int workers;

    @Param({"production", "naive"})
    public String impl;

    @Param({"200"})
    public int window;

    private KvEvent[] events;
    private int[] sizes;
    private boolean[] stored;
    private PrefixIndex index;
    private int next;

    /** Per-iteration counters reported by JMH next to the primary result. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Counters {
        public long blocks;
        /** Blocks carried by Stored events only (the part that inserts). */
        public long storedBlocks;
    }

    @Setup(Level.Trial)
    public void setUp() {
        MooncakeFixture fx = MooncakeFixture.load();
        List<KvEvent> stream = new ArrayList<>();
        int requests = fx.indexEvents(workers, 1_100_000, window, stream::add);
        events = stream.toArray(new KvEvent[0]);
        sizes = new int[events.length];
        stored = new boolean[events.length];
        long total = 0;
        for (int i = 0; i < events.length; i++) {
            KvEvent e = events[i];
            sizes[i] = e instanceof KvEvent.Stored s ? s.blockHashes().length
                    : e instanceof KvEvent.Removed r ? r.blockHashes().length
                    : e instanceof KvEvent.Moved m ? m.blockHashes().length : 1;
            stored[i] = e instanceof KvEvent.Stored;
            total += sizes[i];
        }
        System.out.printf("%n[fixture] %d events carrying %d blocks (%.1f per event), %d requests%n",
                events.length, total, (double) total / events.length, requests);
    }

    @Setup(Level.Iteration)
    public void freshIndex() {
        index = "naive".equals(impl)
                ? new NaiveReferenceIndex(workers)
                : RunPrefixIndex.builder().workers(workers).maxBlocks(8_000_000).expectedBlocks(1 << 21).build();
        next = 0;
    }

    @Benchmark
    public void apply(Counters counters) {
        int i = next;
        index.apply(events[i]);
        counters.blocks += sizes[i];
        if (stored[i]) {
            counters.storedBlocks += sizes[i];
        }
        next = i + 1 == events.length ? 0 : i + 1;
    }
}
