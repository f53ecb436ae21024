package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.sequences.RequestEvent;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The selector feeds C_harm the fleet's requests in flight per worker (Ā), and the harm follows it. */
class FleetHarmTest {

    private static final int BLOCK = 16;
    private int nextId;

    private Selector selector(int workers) {
        List<WorkerSpec> specs = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            specs.add(WorkerSpec.of("w" + w, 1_000_000));
        }
        NaiveReferenceIndex index = new NaiveReferenceIndex(workers);
        return new Selector(SelectorSettings.builder(specs).blockSize(BLOCK).seed(7L).build(), index,
                new DirectIndexWriter(index), new ParameterStore(ParameterSet.defaults(workers)), () -> 1_000_000_000L);
    }

    private RouteDecision route(Selector s, int seed) {
        int[] tokens = new int[256];
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = seed * 1_000_003 + i;
        }
        return s.route(new RouteRequest("r" + (nextId++), null, null, null, tokens, null, null, null, 512, 100, null,
                false)).join();
    }

    @Test
    void harmCountsTheFleetsMeanInFlightPerWorker() {
        Selector s = selector(4);
        RouteDecision first = route(s, 1);
        assertThat(first.chosen().fleetInFlight()).isZero(); // nothing in flight yet
        assertThat(first.chosen().harmUs()).isZero();
        for (int i = 2; i <= 6; i++) {
            route(s, i);
        }
        // 6 requests in flight on 4 workers: Ā = 1.5, and the newcomer recomputes its whole prompt (no cache).
        RouteDecision d = route(s, 7);
        assertThat(d.chosen().fleetInFlight()).isCloseTo(1.5, within(1e-9));
        double alphaP = ParameterSet.defaults(4).cost().alphaP();
        // κ = harmWeight·(0.5 + 2·D̄), D̄ as the selector averaged it up to this route; the chosen worker is busy
        // (on an idle one the charge would be capped by the arrivals during r's prefill: IdleHarmTermTest).
        double duty = s.prefillDuty();
        double kappa = ParameterSet.defaults(4).cost().harmWeight() * (0.5 + 2 * duty);
        assertThat(s.prefillDuty()).isGreaterThan(0); // every request in flight still waits for its first token
        assertThat(d.chosen().inFlight()).isPositive();
        assertThat(d.chosen().harmUs()).isCloseTo(alphaP * d.chosen().pEffTokens() * kappa * 1.5, within(1e-6));
        // 7 in flight; one finishes and leaves the count: 6 on 4 workers again.
        s.onRequestEvent(new RequestEvent(first.requestId(), RequestEvent.Type.FINISHED, 10));
        assertThat(route(s, 8).chosen().fleetInFlight()).isCloseTo(6.0 / 4, within(1e-9));
    }
}
