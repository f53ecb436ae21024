package io.tierroute.selector.bench;

import io.tierroute.selector.scheduling.RouteDecision;
import io.tierroute.selector.scheduling.RouteRequest;
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

import java.util.concurrent.TimeUnit;

/**
 * What a request's {@code tokens} (decode-progress) events cost the selector next to its route, in one run over
 * {@link DecisionBenchmark}'s fixture with {@code inFlightPerWorker} requests decoding on every worker:
 * {@code tokensEvent} is one event ({@code Selector.onRequestEvent}, the call {@code POST /v1/requests/events}
 * makes); {@code decide} and {@code routeAndRetire} are DecisionBenchmark's; {@code routeWithProgress} is a
 * whole request as a streaming gateway reports it: its route, one {@code tokens} event per 16 tokens of the
 * Mooncake mean output (21), and its finish; {@code lifecyclePairs} times the last two in alternation on the same
 * prompts. Mean time per operation; {@link ThreadCpu} also prints the thread's CPU time per operation, steadier
 * than wall time on a shared machine.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+UseParallelGC"})
public class ProgressEventBenchmark {

    @Param({"8", "64", "256"})
    public int workers;

    /** Requests decoding per worker while measured (a worker batching a few dozen sequences). */
    @Param({"32"})
    public int inFlightPerWorker;

    @Param({"1100000"})
    public long blocks;

    private SelectorFixture fx;
    private InFlightLoad load;
    private long next;

    @Setup(Level.Trial)
    public void setUp() {
        fx = SelectorFixture.build("production", workers, blocks);
        fx.routeEachOnce();
        load = new InFlightLoad(fx, workers * inFlightPerWorker);
        System.out.printf("%n[fixture] %d workers, %d requests in flight%n", workers, fx.selector.inflight().size());
    }

    @Benchmark
    public boolean tokensEvent(ThreadCpu cpu) {
        cpu.ops++;
        return load.postTokens();
    }

    @Benchmark
    public RouteDecision decide(ThreadCpu cpu) {
        cpu.ops++;
        return fx.selector.preview(fx.requests[(int) (next++ & (fx.requests.length - 1))]);
    }

    @Benchmark
    public RouteDecision routeAndRetire(ThreadCpu cpu) {
        cpu.ops++;
        return fx.routeAndRetire(fx.request(next, "r" + next++));
    }

    @Benchmark
    public RouteDecision routeWithProgress(ThreadCpu cpu) {
        cpu.ops++;
        return routeWithProgress(fx.request(next, "r" + next++));
    }

    /**
     * {@code routeAndRetire} and {@code routeWithProgress} of the same prompt, one after the other (in turn first),
     * each timed: {@link PairedTimes} prints what the 21 events add to a request on the same machine state.
     */
    @Benchmark
    public RouteDecision lifecyclePairs(PairedTimes times) {
        times.describe("route+finish", "route+" + InFlightLoad.EVENTS_PER_REQUEST + " tokens+finish",
                InFlightLoad.EVENTS_PER_REQUEST);
        long i = next++;
        RouteRequest bare = fx.request(i, "a" + i);
        RouteRequest streamed = fx.request(i, "b" + i);
        long t0;
        long t1;
        long t2;
        RouteDecision d;
        if ((i & 1) == 0) {
            t0 = System.nanoTime();
            fx.routeAndRetire(bare);
            t1 = System.nanoTime();
            d = routeWithProgress(streamed);
            t2 = System.nanoTime();
            times.record(t1 - t0, t2 - t1);
        } else {
            t0 = System.nanoTime();
            d = routeWithProgress(streamed);
            t1 = System.nanoTime();
            fx.routeAndRetire(bare);
            t2 = System.nanoTime();
            times.record(t2 - t1, t1 - t0);
        }
        return d;
    }

    /** Route, then one {@code tokens} event per 16 tokens of the mean output, then the finish. */
    private RouteDecision routeWithProgress(RouteRequest request) {
        RouteDecision d = fx.selector.route(request).join();
        for (int k = 1; k <= InFlightLoad.EVENTS_PER_REQUEST; k++) {
            fx.selector.onRequestEvent(new RequestEvent(d.requestId(), RequestEvent.Type.TOKENS, k * InFlightLoad.EVERY_TOKENS));
        }
        fx.selector.onRequestEvent(new RequestEvent(d.requestId(), RequestEvent.Type.FINISHED, 0));
        return d;
    }
}
