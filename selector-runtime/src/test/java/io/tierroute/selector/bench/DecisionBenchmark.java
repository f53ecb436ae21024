package io.tierroute.selector.bench;

import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.index.PrefixIndex;
import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.scheduling.RouteDecision;
import io.tierroute.selector.scheduling.RouteRequest;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.scheduling.SelectorSettings;
import io.tierroute.selector.scheduling.WorkerSpec;
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

import java.util.ArrayList;
import java.util.List;
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
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+UseParallelGC"})
public class DecisionBenchmark {

    @Param({"8", "64", "256"})
    public int workers;

    @Param({"production", "naive"})
    public String impl;

    @Param({"1100000"})
    public long blocks;

    private Selector selector;
    private RouteRequest[] requests;
    private int next;
    private long id;

    @Setup(Level.Trial)
    public void setUp() {
        MooncakeFixture fx = MooncakeFixture.load();
        PrefixIndex index = "naive".equals(impl)
                ? new NaiveReferenceIndex(workers)
                : RunPrefixIndex.builder().workers(workers).maxBlocks(8_000_000).expectedBlocks((int) (blocks * 2)).build();
        fx.populate(index, workers, blocks);
        List<WorkerSpec> specs = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            specs.add(WorkerSpec.of("w" + w, 2_000_000));
        }
        SelectorSettings settings = SelectorSettings.builder(specs)
                .model("mooncake-synthetic").blockSize(MooncakeFixture.BLOCK_SIZE).seed(1L).build();
        selector = new Selector(settings, index, new DirectIndexWriter(index),
                new ParameterStore(ParameterSet.defaults(workers)), System::nanoTime);
        int[][] prompts = fx.queries(1024, 42, Integer.MAX_VALUE);
        requests = new RouteRequest[prompts.length];
        for (int i = 0; i < prompts.length; i++) {
            requests[i] = request(prompts[i], "warmup-" + i);
        }
        long hits = 0;
        for (RouteRequest r : requests) {
            RouteDecision d = selector.route(r).join();
            hits += d.chosen().hitTokens();
            selector.onRequestEvent(new RequestEvent(d.requestId(), RequestEvent.Type.FINISHED, 0));
        }
        System.out.printf("%n[fixture] %s, %d workers: %d blocks indexed; mean hit of the chosen worker %.0f of %d tokens%n",
                impl, workers, index.blockCount(), (double) hits / requests.length, MooncakeFixture.QUERY_TOKENS);
    }

    private static RouteRequest request(int[] tokens, String requestId) {
        return new RouteRequest(requestId, null, null, null, tokens, null, null, null, 512, 256, null, false);
    }

    /** The decision alone, as the issue defines it: hash, match, cost over every worker, pick. */
    @Benchmark
    public RouteDecision decide() {
        return selector.preview(requests[next++ & (requests.length - 1)]);
    }

    /** The whole route path: the decision plus admission, and retiring the request afterwards. */
    @Benchmark
    public RouteDecision routeAndRetire() {
        RouteRequest template = requests[next++ & (requests.length - 1)];
        RouteDecision d = selector.route(request(template.tokens(), Long.toString(id++))).join();
        selector.onRequestEvent(new RequestEvent(d.requestId(), RequestEvent.Type.FINISHED, 0));
        return d;
    }
}
