package io.tierroute.selector.bench;

import io.tierroute.selector.protocol.BlockHasher;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
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

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The drain's worst case under {@code holdAtCheapestWaiting} 3 (with {@code holdAtWaiting} 1, as the simulator runs
 * them): the whole queue waits for one busy worker while every other has room. Each held request's prompt has its
 * prefix in HBM on worker 0 alone, which already has 3 of them waiting for a first token (and none ever comes), so
 * every drain ranks the first {@code QueueDrain.RERANK_WINDOW} in dry runs, places none, and scans on down the queue
 * ({@code QueueDrain.DRAIN_SCAN_LIMIT}, then as many past it) without placing any of them. The held prompts are 8,000
 * tokens matched in full on worker 0: each attempt walks 500 blocks, and, but for the hashes kept with a queued request
 * ({@code PromptHashes}), would hash them all again.
 * <p>One operation: a request whose prompt no worker holds arrives (it queues behind the held ones, and the drain its
 * arrival runs finds it and places it on a free worker), then its {@code first_token} and {@code finished} events,
 * each of which drains again. With {@code held} 0 the same operation finds nothing to scan: the ratio of the two is
 * what a queue stuck behind one worker costs each event. {@code held} stays below the two scan windows (128) so one
 * drain always reaches the newcomer.
 * <p>{@code overdue}: {@code never} ({@code queueOverdueAfter} 0) or {@code atOnce} (1 ns: every held request is overdue
 * from the start, so each drain first dry-runs up to {@code QueueDrain.RERANK_WINDOW} of them, longest-waiting first,
 * in {@code overduePlaceable}, finds none placeable, and then does the above, its re-ranking skipping the ones just
 * found unplaceable): the price of the overdue check when the requests that have waited longest cannot be placed.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+UseParallelGC"})
public class HeldForBusyWorkerDrainBenchmark {

    /** The cheapest-worker bound, as {@code TierroutePolicy.HOLD_AT_CHEAPEST_WAITING}. */
    private static final int BOUND = 3;

    @Param({"8", "64"})
    public int workers;

    /** Requests held for worker 0 (beside the {@link #BOUND} bound to it). */
    @Param({"0", "16", "112"})
    public int held;

    @Param({"1100000"})
    public long blocks;

    @Param({"never", "atOnce"})
    public String overdue;

    private SelectorFixture fx;
    /** Worker 0's prompt: a prefix no trace request shares, stored in its HBM alone. */
    private int[] hotPrompt;
    /** A prompt no worker holds a block of: it goes to whichever worker is free. */
    private int[] coldPrompt;
    private long next;

    @Setup(Level.Trial)
    public void setUp() {
        fx = SelectorFixture.build("production", workers, blocks, 0, 1, BOUND,
                "atOnce".equals(overdue) ? Duration.ofNanos(1) : Duration.ZERO);
        hotPrompt = promptOfFreshIds(-1_000);
        coldPrompt = promptOfFreshIds(-2_000);
        storeOnWorkerZero(hotPrompt);
        for (int i = 0; i < BOUND + held; i++) {
            CompletableFuture<RouteDecision> f = fx.selector.route(hotRequest("hot" + i));
            boolean shouldBePlaced = i < BOUND;
            if (f.isDone() != shouldBePlaced || (shouldBePlaced && f.join().workerIndex() != 0)) {
                throw new IllegalStateException("hot request " + i + " was " + (f.isDone()
                        ? "placed on worker " + f.join().workerIndex() : "held")
                        + ", where the fixture needs it " + (shouldBePlaced ? "placed on worker 0" : "held"));
            }
        }
        RouteDecision d = arriveCold();
        System.out.printf("%n[fixture] %d workers; %d waiting on worker 0, %d held for it; a cold prompt goes to "
                + "worker %d%n", workers, BOUND, fx.selector.queueLength(), d.workerIndex());
        retire(d.requestId());
    }

    @Benchmark
    public int coldRequestOnAFreeWorker(ThreadCpu cpu) {
        cpu.ops++;
        retire(arriveCold().requestId());
        return fx.selector.queueLength();
    }

    /**
     * One output token: what makes worker 0 the cheapest for it is its prefix, and an expected decode of default
     * length would price the three already there above a full prefill elsewhere (default parameters).
     */
    private RouteRequest hotRequest(String id) {
        return new RouteRequest(id, null, null, null, hotPrompt, null, null, null, 1, 1, null, false);
    }

    /** The cold request, placed within its own arrival's drain (or the fixture is not what this measures). */
    private RouteDecision arriveCold() {
        RouteDecision d = fx.selector.route(SelectorFixture.request(coldPrompt, "cold" + next++)).getNow(null);
        if (d == null || d.workerIndex() == 0) {
            throw new IllegalStateException("the cold request was " + (d == null ? "held" : "sent to worker 0")
                    + " with " + fx.selector.queueLength() + " held");
        }
        return d;
    }

    private void retire(String requestId) {
        fx.selector.onRequestEvent(new RequestEvent(requestId, RequestEvent.Type.FIRST_TOKEN, 1));
        fx.selector.onRequestEvent(new RequestEvent(requestId, RequestEvent.Type.FINISHED, 1));
    }

    /** {@link MooncakeFixture#QUERY_TOKENS} tokens from trace block ids below zero, which the trace never uses. */
    private static int[] promptOfFreshIds(long firstId) {
        int ids = (MooncakeFixture.QUERY_TOKENS + MooncakeFixture.TRACE_BLOCK_TOKENS - 1)
                / MooncakeFixture.TRACE_BLOCK_TOKENS;
        long[] fresh = new long[ids];
        for (int i = 0; i < ids; i++) {
            fresh[i] = firstId - i;
        }
        return Arrays.copyOf(MooncakeFixture.tokens(fresh, ids), MooncakeFixture.QUERY_TOKENS);
    }

    private void storeOnWorkerZero(int[] prompt) {
        long[] hashes = new long[prompt.length / MooncakeFixture.BLOCK_SIZE];
        int n = new BlockHasher().hashTokens(prompt, prompt.length, MooncakeFixture.BLOCK_SIZE, MooncakeFixture.SALT,
                hashes);
        fx.index.apply(new KvEvent.Stored(0, Tier.HBM, false, 0, Arrays.copyOf(hashes, n)));
    }
}
