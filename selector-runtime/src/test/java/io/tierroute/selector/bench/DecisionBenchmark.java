package io.tierroute.selector.bench;

import io.tierroute.selector.scheduling.RouteDecision;
import io.tierroute.selector.scheduling.RouteRequest;
import io.tierroute.selector.scheduling.Selector;
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
 * One whole routing decision: hash an 8,000-token prompt (500 blocks of 16), match it against an
 * index of ≥ 1.1 M Mooncake blocks, score every worker with the full cost model, and pick
 * ({@code decide}); {@code routeAndRetire} also admits the request and retires it afterwards, so
 * load stays flat and the figure includes the in-flight bookkeeping.
 * {@code impl=naive} runs the same decision over the naive {@code HashMap<blockHash, Set<worker>>}
 * index, walked block by block.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
// The heap is touched before the trial: otherwise its pages are first touched while decisions run, which put the
// p99.99 at 311 µs against 84 µs (bench/RESULTS.md, "Decision latency measured again"): a cost of a fresh JVM, not of
// the selector.
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+UseParallelGC", "-XX:+AlwaysPreTouch"})
public class DecisionBenchmark {

    @Param({"8", "64", "256"})
    public int workers;

    @Param({"production", "naive"})
    public String impl;

    @Param({"1100000"})
    public long blocks;

    private SelectorFixture fx;
    private Selector selector;
    private RouteRequest[] requests;
    private int next;
    private long id;

    @Setup(Level.Trial)
    public void setUp() {
        fx = SelectorFixture.build(impl, workers, blocks);
        selector = fx.selector;
        requests = fx.requests;
        double meanHit = fx.routeEachOnce();
        System.out.printf("%n[fixture] %s, %d workers: %d blocks indexed; mean hit of the chosen worker %.0f of %d tokens%n",
                impl, workers, fx.index.blockCount(), meanHit, MooncakeFixture.QUERY_TOKENS);
    }

    /** The decision alone, as the issue defines it: hash, match, cost over every worker, pick. */
    @Benchmark
    public RouteDecision decide() {
        return selector.preview(requests[next++ & (requests.length - 1)]);
    }

    /** The whole route path: the decision plus admission, and retiring the request afterwards. */
    @Benchmark
    public RouteDecision routeAndRetire() {
        return fx.routeAndRetire(fx.request(next++, Long.toString(id++)));
    }
}
