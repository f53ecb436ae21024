package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
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
        int[] tokens = new int[64];
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = i + 1;
        }
        return new RouteRequest(id, null, null, null, tokens, null, null, null, 16, null, null, false);
    }

    @Test
    void theSinkHearsAdmittedRoutesButNotPreviews() throws Exception {
        Selector s = selector();
        List<String> heard = new ArrayList<>();
        s.decisionSink((request, decision, candidates, prefixGroup, idleMs, ts) -> heard.add(decision.requestId()));
        s.preview(request("dry"));
        s.route(request("a")).get();
        assertThat(heard).containsExactly("a");
        assertThat(s.decisionSinkErrors()).isZero();
    }

    @Test
    void aThrowingSinkNeitherFailsTheRouteNorGoesUncounted() throws Exception {
        Selector s = selector();
        s.decisionSink((request, decision, candidates, prefixGroup, idleMs, ts) -> {
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
