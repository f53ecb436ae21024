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

    private record Heard(String requestId, String worker, long idleMs, long lastWorkerHeld) {}

    /**
     * λ's observation is taken at every step with a previous one, whichever worker is chosen: what the previous worker
     * still holds of the prompt on its own tiers (a remote tier is anyone's), in tokens; a first step says nothing.
     */
    @Test
    void everyNextStepReportsWhatItsPreviousWorkerStillHolds() throws Exception {
        Selector s = selector();
        List<Heard> heard = new ArrayList<>();
        s.decisionSink((request, decision, candidates, prefixGroup, idleMs, held, ts) ->
                heard.add(new Heard(decision.requestId(), decision.worker(), idleMs, held)));
        RouteRequest.AgentContext agent = new RouteRequest.AgentContext("wf", null, List.of());
        RouteDecision step1 = s.route(request("s1", prompt(64), agent)).get();
        s.onRequestEvent(new RequestEvent("s1", RequestEvent.Type.FINISHED, 10));
        int previous = step1.workerIndex();
        int other = 1 - previous;
        // The other worker holds the whole 16k-token prompt in HBM (its prefill saved outweighs the affinity bonus), the
        // previous one its first 32 tokens on NVMe and 96 more remotely: the next step goes to the other worker, and
        // the previous one held 32 tokens of it.
        store(s, other, Tier.HBM, 16_384);
        store(s, previous, Tier.NVME, 32);
        store(s, previous, Tier.REMOTE, 128);
        RouteDecision step2 = s.route(request("s2", prompt(16_384), agent)).get();
        assertThat(step2.workerIndex()).isEqualTo(other);
        s.onRequestEvent(new RequestEvent("s2", RequestEvent.Type.FINISHED, 10));
        s.route(request("s3", prompt(16_384), agent)).get();

        assertThat(heard).extracting(Heard::requestId).containsExactly("s1", "s2", "s3");
        assertThat(heard.get(0).idleMs()).as("a first step").isEqualTo(-1);
        assertThat(heard.get(0).lastWorkerHeld()).isEqualTo(-1);
        assertThat(heard.get(1).idleMs()).isGreaterThanOrEqualTo(0);
        assertThat(heard.get(1).lastWorkerHeld()).as("routed elsewhere, still observed").isEqualTo(32);
        assertThat(heard.get(2).lastWorkerHeld()).as("its previous worker holds all of it, capped at the prompt")
                .isEqualTo(16_384);
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
