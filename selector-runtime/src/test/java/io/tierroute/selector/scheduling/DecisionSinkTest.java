package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.BlockHasher;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.sequences.RequestEvent;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The selector's decision sink: admitted routes only, and a failing sink is counted, never fatal. */
class DecisionSinkTest {

    private static Selector selector() {
        List<WorkerSpec> specs = List.of(WorkerSpec.of("w0", 1_000_000), WorkerSpec.of("w1", 1_000_000));
        SelectorSettings settings = SelectorSettings.builder(specs).blockSize(16).model("m").seed(7L).build();
        NaiveReferenceIndex index = new NaiveReferenceIndex(2);
        return new Selector(settings, index, new DirectIndexWriter(index),
                new ParameterStore(ParameterSet.defaults(2)), System::nanoTime);
    }

    private static RouteRequest request(String id) {
        return request(id, prompt(64), null);
    }

    private static int[] prompt(int length) {
        int[] tokens = new int[length];
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = i + 1;
        }
        return tokens;
    }

    private static RouteRequest request(String id, int[] tokens, RouteRequest.AgentContext agent) {
        return new RouteRequest(id, null, null, null, tokens, null, null, null, 16, null, agent, false);
    }

    /** Tells the index that {@code worker} holds the first {@code tokens} tokens of {@link #prompt} on {@code tier}. */
    private static void store(Selector s, int worker, Tier tier, int tokens) {
        long[] hashes = new long[tokens / 16];
        int n = new BlockHasher().hashTokens(prompt(tokens), tokens, 16, BlockHasher.salt("m", null, null), hashes);
        s.indexWriter().submit(List.of(new KvEvent.Stored(worker, tier, false, 0, Arrays.copyOf(hashes, n))));
    }

    private record Heard(String requestId, int worker, long idleMs, long lastWorkerHeld) {}

    /** Two workers (w1 approximate when asked) on a clock the test moves, every admitted decision heard. */
    private static Selector clocked(AtomicLong clock, boolean secondApproximate, List<Heard> heard) {
        List<WorkerSpec> specs = List.of(WorkerSpec.of("w0", 1_000_000),
                new WorkerSpec("w1", 1_000_000, WorkerSpec.of("w1", 1_000_000).bandwidth(), secondApproximate, 0, 0));
        SelectorSettings settings = SelectorSettings.builder(specs).blockSize(16).model("m").seed(7L).build();
        NaiveReferenceIndex index = new NaiveReferenceIndex(2);
        Selector s = new Selector(settings, index, new DirectIndexWriter(index),
                new ParameterStore(ParameterSet.defaults(2)), clock::get);
        s.decisionSink((request, decision, candidates, prefixGroup, idleMs, held, ts) ->
                heard.add(new Heard(decision.requestId(), decision.workerIndex(), idleMs, held)));
        return s;
    }

    private static void finish(Selector s, String requestId, AtomicLong clock, long idleSeconds) {
        s.onRequestEvent(new RequestEvent(requestId, RequestEvent.Type.FINISHED, 10));
        clock.addAndGet(idleSeconds * 1_000_000_000L);
    }

    /**
     * λ's observation is taken at every step with a previous one, whichever worker is chosen: what the previous worker
     * still holds of the prompt on its own tiers (a remote tier is anyone's), in tokens; a first step says nothing.
     */
    @Test
    void everyNextStepReportsWhatItsPreviousWorkerStillHolds() throws Exception {
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        List<Heard> heard = new ArrayList<>();
        Selector s = clocked(clock, false, heard);
        RouteRequest.AgentContext agent = new RouteRequest.AgentContext("wf", null, List.of());
        int previous = s.route(request("s1", prompt(64), agent)).get().workerIndex();
        finish(s, "s1", clock, 5);
        int other = 1 - previous;
        // The other worker holds the whole 16k-token prompt in HBM (its prefill saved outweighs the affinity bonus), the
        // previous one its first 32 tokens on NVMe and 96 more remotely: the next step goes to the other worker, and
        // the previous one held 32 tokens of it.
        store(s, other, Tier.HBM, 16_384);
        store(s, previous, Tier.NVME, 32);
        store(s, previous, Tier.REMOTE, 128);
        assertThat(s.route(request("s2", prompt(16_384), agent)).get().workerIndex()).isEqualTo(other);
        finish(s, "s2", clock, 7);
        s.route(request("s3", prompt(16_384), agent)).get();

        assertThat(heard).extracting(Heard::requestId).containsExactly("s1", "s2", "s3");
        assertThat(heard.get(0)).as("a first step").isEqualTo(new Heard("s1", previous, -1, -1));
        assertThat(heard.get(1)).as("routed elsewhere, still observed").isEqualTo(new Heard("s2", other, 5_000, 32));
        assertThat(heard.get(2).idleMs()).isEqualTo(7_000);
        assertThat(heard.get(2).lastWorkerHeld()).as("its previous worker holds all of it").isEqualTo(16_384);
    }

    /**
     * No observation while the previous step still runs (nothing had time to decay), nor after one that failed (its
     * worker may never have held the context), nor when the previous worker is approximate (the index then holds the selector's own admissions until their TTL, not what the engine kept); a
     * prompt given as block ids with a shorter length is capped at that length.
     */
    @Test
    void aRunningOrApproximatePreviousStepGivesNoObservationAndTheCountStaysWithinThePrompt() throws Exception {
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        List<Heard> heard = new ArrayList<>();
        Selector s = clocked(clock, true, heard);
        RouteRequest.AgentContext agent = new RouteRequest.AgentContext("wf", null, List.of());
        store(s, 0, Tier.HBM, 1_024);
        s.route(request("a1", prompt(1_024), agent)).get(); // goes to w0, which holds it
        clock.addAndGet(3_000_000_000L);
        s.route(request("a2", prompt(1_024), agent)).get(); // a1 still runs
        finish(s, "a1", clock, 0);
        finish(s, "a2", clock, 4);
        long[] ids = new long[63]; // 1,008 tokens of full blocks for a 1,000-token prompt: a partial last block
        for (int i = 0; i < ids.length; i++) {
            ids[i] = 500 + i;
        }
        long[] hashes = new long[ids.length];
        new BlockHasher().hashBlockIds(ids, ids.length, BlockHasher.salt("m", null, null), hashes);
        s.indexWriter().submit(List.of(new KvEvent.Stored(heard.get(1).worker(), Tier.HBM, false, 0, hashes)));
        s.route(new RouteRequest("a3", null, null, null, null, ids, null, 1_000, 16, null, agent, false)).get();
        s.onRequestEvent(new RequestEvent("a3", RequestEvent.Type.FAILED, 0)); // e.g. an engine error before its prefill
        clock.addAndGet(5_000_000_000L);
        s.route(request("a4", prompt(1_024), agent)).get();

        assertThat(heard).extracting(Heard::worker).as("w0 holds the prompt").containsExactly(0, 0, 0, 0);
        assertThat(heard.get(1).idleMs()).as("its previous step still ran").isZero();
        assertThat(heard.get(1).lastWorkerHeld()).isEqualTo(-1);
        assertThat(heard.get(2).idleMs()).isEqualTo(4_000);
        assertThat(heard.get(2).lastWorkerHeld()).as("1,008 tokens held of a 1,000-token prompt").isEqualTo(1_000);
        assertThat(heard.get(3).idleMs()).isEqualTo(5_000);
        assertThat(heard.get(3).lastWorkerHeld()).as("its previous step failed: it may never have held it").isEqualTo(-1);

        // The approximate worker as the previous one: no observation, whatever its index says.
        List<Heard> approx = new ArrayList<>();
        AtomicLong tClock = new AtomicLong(1_000_000_000L);
        Selector t = clocked(tClock, true, approx);
        store(t, 1, Tier.HBM, 1_024);
        RouteRequest.AgentContext other = new RouteRequest.AgentContext("wf-2", null, List.of());
        assertThat(t.route(request("b1", prompt(1_024), other)).get().workerIndex()).isEqualTo(1);
        finish(t, "b1", tClock, 6);
        t.route(request("b2", prompt(1_024), other)).get();
        assertThat(approx.get(1).idleMs()).isEqualTo(6_000);
        assertThat(approx.get(1).lastWorkerHeld()).as("an approximate previous worker").isEqualTo(-1);
    }

    @Test
    void theSinkHearsAdmittedRoutesButNotPreviews() throws Exception {
        Selector s = selector();
        List<String> heard = new ArrayList<>();
        s.decisionSink((request, decision, candidates, prefixGroup, idleMs, held, ts) -> heard.add(decision.requestId()));
        s.preview(request("dry"));
        s.route(request("a")).get();
        assertThat(heard).containsExactly("a");
        assertThat(s.decisionSinkErrors()).isZero();
    }

    @Test
    void aThrowingSinkNeitherFailsTheRouteNorGoesUncounted() throws Exception {
        Selector s = selector();
        s.decisionSink((request, decision, candidates, prefixGroup, idleMs, held, ts) -> {
            throw new IllegalStateException("sink broke");
        });
        RouteDecision d = s.route(request("a")).get();
        assertThat(d.requestId()).isEqualTo("a");
        s.route(request("b")).get();
        assertThat(s.decisionSinkErrors()).isEqualTo(2);
        s.decisionSink(null);
        s.route(request("c")).get();
        assertThat(s.decisionSinkErrors()).isEqualTo(2);
    }
}
