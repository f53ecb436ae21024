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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real {@link Selector} over the Mooncake fixture's index with 1,024 query prompts of 8,000 tokens: what the
 * decision benchmarks route. Workers have default parameters and 2 M tokens of KV; the seed is fixed so runs
 * pick alike.
 */
final class SelectorFixture {

    final Selector selector;
    final PrefixIndex index;
    /** A power of two in length, so benchmarks cycle through it with a mask. */
    final RouteRequest[] requests;

    private SelectorFixture(Selector selector, PrefixIndex index, RouteRequest[] requests) {
        this.selector = selector;
        this.index = index;
        this.requests = requests;
    }

    /** Workers without load limits. */
    static SelectorFixture build(String impl, int workers, long blocks) {
        return build(impl, workers, blocks, 0);
    }

    /**
     * @param impl        "production" ({@link RunPrefixIndex}) or "naive" ({@link NaiveReferenceIndex})
     * @param maxInFlight every worker's limit on requests in flight, beyond which routes queue (0: none)
     */
    static SelectorFixture build(String impl, int workers, long blocks, int maxInFlight) {
        return build(impl, workers, blocks, maxInFlight, 0);
    }

    /** @param holdAtWaiting late binding across the fleet ({@link SelectorSettings#holdAtWaiting}; 0: off) */
    static SelectorFixture build(String impl, int workers, long blocks, int maxInFlight, int holdAtWaiting) {
        return build(impl, workers, blocks, maxInFlight, holdAtWaiting, 0);
    }

    /** @param holdAtCheapestWaiting late binding to the cheapest worker ({@link SelectorSettings#holdAtCheapestWaiting}) */
    static SelectorFixture build(String impl, int workers, long blocks, int maxInFlight, int holdAtWaiting,
                                 int holdAtCheapestWaiting) {
        return build(impl, workers, blocks, maxInFlight, holdAtWaiting, holdAtCheapestWaiting,
                Duration.ofSeconds(SelectorSettings.OVERDUE_AFTER_SECONDS));
    }

    /**
     * @param queueOverdueAfter {@link SelectorSettings#queueOverdueAfter}: the benchmarks' clock is the wall clock, so
     *                          under the default (15 s) requests held through a long trial turn overdue part-way
     */
    static SelectorFixture build(String impl, int workers, long blocks, int maxInFlight, int holdAtWaiting,
                                 int holdAtCheapestWaiting, Duration queueOverdueAfter) {
        MooncakeFixture fx = MooncakeFixture.load();
        PrefixIndex index = "naive".equals(impl)
                ? new NaiveReferenceIndex(workers)
                : RunPrefixIndex.builder().workers(workers).maxBlocks(8_000_000).expectedBlocks((int) (blocks * 2)).build();
        fx.populate(index, workers, blocks);
        List<WorkerSpec> specs = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            WorkerSpec spec = WorkerSpec.of("w" + w, 2_000_000);
            specs.add(new WorkerSpec(spec.name(), spec.kvCapacityTokens(), spec.bandwidth(), false, maxInFlight, 0));
        }
        SelectorSettings settings = SelectorSettings.builder(specs)
                .model("mooncake-synthetic").blockSize(MooncakeFixture.BLOCK_SIZE).seed(1L).holdAtWaiting(holdAtWaiting)
                .holdAtCheapestWaiting(holdAtCheapestWaiting).queueOverdueAfter(queueOverdueAfter)
                // The benchmarks' clock is the wall clock, and the requests they keep waiting never give output: a
                // silent worker would leave the measured state after 10 s of a trial.
                .holdAtCheapestSilentAfter(Duration.ZERO).build();
        Selector selector = new Selector(settings, index, new DirectIndexWriter(index),
                new ParameterStore(ParameterSet.defaults(workers)), System::nanoTime);
        int[][] prompts = fx.queries(1024, 42, Integer.MAX_VALUE);
        RouteRequest[] requests = new RouteRequest[prompts.length];
        for (int i = 0; i < prompts.length; i++) {
            requests[i] = request(prompts[i], "warmup-" + i);
        }
        return new SelectorFixture(selector, index, requests);
    }

    static RouteRequest request(int[] tokens, String requestId) {
        return new RouteRequest(requestId, null, null, null, tokens, null, null, null, 512, 256, null, false);
    }

    /** The {@code i}-th query prompt (cyclically) under a new request id. */
    RouteRequest request(long i, String requestId) {
        return request(requests[(int) (i & (requests.length - 1))].tokens(), requestId);
    }

    /** Routes and finishes every query prompt once (warming the code paths); returns the chosen worker's mean hit. */
    double routeEachOnce() {
        long hits = 0;
        for (RouteRequest r : requests) {
            RouteDecision d = selector.route(r).join();
            hits += d.chosen().hitTokens();
            selector.onRequestEvent(new RequestEvent(d.requestId(), RequestEvent.Type.FINISHED, 0));
        }
        return (double) hits / requests.length;
    }

    /** The whole route path, as the HTTP handler runs it: decide, admit; then the request's {@code finished} event. */
    RouteDecision routeAndRetire(RouteRequest request) {
        RouteDecision d = selector.route(request).join();
        selector.onRequestEvent(new RequestEvent(d.requestId(), RequestEvent.Type.FINISHED, 0));
        return d;
    }
}
