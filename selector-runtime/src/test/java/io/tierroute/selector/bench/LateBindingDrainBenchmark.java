package io.tierroute.selector.bench;

import io.tierroute.selector.scheduling.RouteDecision;
import io.tierroute.selector.sequences.RequestEvent;
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
import org.openjdk.jmh.annotations.TearDown;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A first token under late binding ({@code holdAtWaiting} 1, and {@code holdAtCheapestWaiting} 3 as the simulator runs
 * it, or off) while requests are held: the event frees a worker and the drain places a held request, after ranking the
 * first {@code QueueDrain.RERANK_WINDOW} again by their cost now (and, when none of those can go, looking further down
 * the queue, {@code QueueDrain.DRAIN_SCAN_LIMIT}).
 * One operation: the oldest placed request's {@code first_token} and {@code finished} events, then a new arrival
 * (held again once every worker waits), so the queue stays near {@code held}. With {@code held} 1 the drain has
 * nothing to rank: the ratio of the two is the re-ranking's price. The teardown prints the mean queue length seen.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+UseParallelGC"})
public class LateBindingDrainBenchmark {

    @Param({"8", "64"})
    public int workers;

    /** Requests held in the admission queue when the measurement starts. */
    @Param({"1", "64"})
    public int held;

    /** {@code holdAtCheapestWaiting}: 0 off, 3 as the simulator's tierroute policies run it. */
    @Param({"0", "3"})
    public int holdAtCheapestWaiting;

    @Param({"1100000"})
    public long blocks;

    private SelectorFixture fx;
    /** Placed requests still waiting for their first token, oldest first. */
    private final ArrayDeque<String> waiting = new ArrayDeque<>();
    private long next;
    private long queueSum;
    private long ops;

    @Setup(Level.Trial)
    public void setUp() {
        fx = SelectorFixture.build("production", workers, blocks, 0, 1, holdAtCheapestWaiting);
        // Arrivals until `held` wait: the first ones are placed until every worker has one waiting.
        while (fx.selector.queueLength() < held) {
            if (next > 100L * workers + held) {
                throw new IllegalStateException("no request was held after " + next + " arrivals");
            }
            arrive();
        }
        System.out.printf("%n[fixture] %d workers, %d placed and waiting for a first token, %d held%n",
                workers, waiting.size(), fx.selector.queueLength());
    }

    private void arrive() {
        CompletableFuture<RouteDecision> f = fx.selector.route(fx.request(next, "r" + next));
        next++;
        f.thenAccept(d -> waiting.add(d.requestId())); // at once when placed, inside the drain when held
    }

    @Benchmark
    public int firstTokenReleasesOne(ThreadCpu cpu) {
        cpu.ops++;
        String id = waiting.poll();
        fx.selector.onRequestEvent(new RequestEvent(id, RequestEvent.Type.FIRST_TOKEN, 1));
        fx.selector.onRequestEvent(new RequestEvent(id, RequestEvent.Type.FINISHED, 1));
        arrive();
        int queued = fx.selector.queueLength();
        queueSum += queued;
        ops++;
        return queued;
    }

    @TearDown(Level.Trial)
    public void report() {
        System.out.printf("%n[queue] %d workers, held %d, holdAtCheapestWaiting %d: mean queue length %.1f over %d "
                + "operations%n", workers, held, holdAtCheapestWaiting, ops == 0 ? 0.0 : (double) queueSum / ops, ops);
    }
}
