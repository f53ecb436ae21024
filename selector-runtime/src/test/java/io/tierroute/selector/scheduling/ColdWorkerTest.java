package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.params.CostParameters;
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
import static org.assertj.core.api.Assertions.within;

/**
 * The starved cold worker (fleet-sim/experiments/ROUNDS.md, "Starved-worker round"), end to end through the selector, and the two
 * fleet averages C_harm reads (D̄, λ_w) as the selector keeps them.
 */
class ColdWorkerTest {

    private static final int BLOCK = 16;
    private static final int WORKERS = 4;
    private static final int COLD = 3;
    private static final double ALPHA_P = 20;
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private int nextId;

    private Selector selector(CostParameters p) {
        List<WorkerSpec> specs = new ArrayList<>();
        for (int w = 0; w < WORKERS; w++) {
            specs.add(WorkerSpec.of("w" + w, 1_000_000));
        }
        NaiveReferenceIndex index = new NaiveReferenceIndex(WORKERS);
        return new Selector(SelectorSettings.builder(specs).blockSize(BLOCK).seed(7L).build(), index,
                new DirectIndexWriter(index), new ParameterStore(ParameterSet.builder(WORKERS).cost(p).build()), clock::get);
    }

    /** The first 512 tokens every prompt shares (Mooncake's system prompt), then 512 of its own. */
    private static int[] prompt(int seed) {
        int[] t = new int[1024];
        for (int i = 0; i < t.length; i++) {
            t[i] = i < 512 ? 7 * 1_000_003 + i : seed * 1_000_003 + i;
        }
        return t;
    }

    private RouteDecision route(Selector s, int[] tokens, boolean explain) {
        RouteDecision d = s.route(new RouteRequest("r" + (nextId++), null, null, null, tokens, null, null, null, 512, 100,
                null, explain)).join();
        return d;
    }

    private static void store(Selector s, int worker, int[] tokens, int length) {
        long[] hashes = new long[length / BLOCK];
        int n = new BlockHasher().hashTokens(tokens, length, BLOCK, BlockHasher.salt("default", null, null), hashes);
        s.indexWriter().submit(List.of(new KvEvent.Stored(worker, Tier.HBM, false, 0, Arrays.copyOf(hashes, n))));
    }

    @Test
    void aColdIdleWorkerIsChosenWhereTheFleetsAbarWouldKeepItOut() {
        // α_p = 20 µs/token, α_d = 50 µs per predicted output token in flight (d̂ = 100 each): each request in
        // flight adds ~5 ms of decode to its worker; the cold worker's extra recompute is 512 tokens, 10.2 ms.
        CostParameters p = CostParameters.builder().alphaP(ALPHA_P).alphaP2(0).alphaD(50).alphaD2(0).alphaOwn(0).build();
        Selector s = selector(p);
        for (int w = 0; w < COLD; w++) {
            store(s, w, prompt(0), 512);
        }
        // Two requests decoding on every warm worker (the cold one drains meanwhile, so none reaches it).
        s.setDraining(COLD, true);
        for (int i = 1; i <= 2 * COLD; i++) {
            clock.addAndGet(100_000_000L);
            RouteDecision d = route(s, prompt(i), false);
            assertThat(d.workerIndex()).isNotEqualTo(COLD);
            s.onRequestEvent(new RequestEvent(d.requestId(), RequestEvent.Type.FIRST_TOKEN, 1));
        }
        s.setDraining(COLD, false);

        clock.addAndGet(100_000_000L);
        RouteDecision d = route(s, prompt(100), true);

        assertThat(d.workerIndex()).isEqualTo(COLD);
        double abar = 6.0 / WORKERS;
        double duty = s.prefillDuty(); // nothing waited for a first token at any arrival
        assertThat(duty).isZero();
        double kappa = p.harmWeight() * (0.5 + 2 * duty);
        double rate = s.arrivalRatePerWorker(); // one arrival every 0.1 s over 4 workers
        assertThat(rate).isCloseTo(1.0 / (0.1 * WORKERS), within(1e-9));
        CostBreakdown cold = d.candidates().get(COLD).cost();
        assertThat(cold.inFlight()).isZero();
        assertThat(cold.pEffTokens()).isEqualTo(1024);
        assertThat(cold.fleetInFlight()).isCloseTo(abar, within(1e-12));
        double tpfSeconds = cold.prefillUs() / 1e6;
        assertThat(cold.harmUs()).isCloseTo(ALPHA_P * 1024 * kappa * Math.min(abar, rate * tpfSeconds), within(1e-6));
        for (int w = 0; w < COLD; w++) {
            CostBreakdown warm = d.candidates().get(w).cost();
            assertThat(warm.inFlight()).isEqualTo(2);
            assertThat(warm.pEffTokens()).isEqualTo(512);
            assertThat(warm.harmUs()).isCloseTo(ALPHA_P * 512 * kappa * abar, within(1e-6));
        }

        // The same candidates priced with Ā on the idle worker too: a warm worker wins, with the committed
        // κ = harmWeight as with κ = harmWeight·(0.5 + 2·D̄).
        assertThat(argmin(d, p.harmWeight(), abar)).isNotEqualTo(COLD);
        assertThat(argmin(d, kappa, abar)).isNotEqualTo(COLD);
    }

    /** The worker with the lowest total when every candidate's C_harm is {@code α_p·p_eff·κ·Ā} (nothing waits). */
    private static int argmin(RouteDecision d, double kappa, double abar) {
        int best = -1;
        double min = Double.POSITIVE_INFINITY;
        for (int w = 0; w < d.candidates().size(); w++) {
            CostBreakdown c = d.candidates().get(w).cost();
            assertThat(c.queueLength()).isZero();
            double total = c.totalUs() - c.harmUs() + ALPHA_P * c.pEffTokens() * kappa * abar;
            if (total < min) {
                min = total;
                best = w;
            }
        }
        return best;
    }

    @Test
    void theDutyIsAnEwmaOfTheShareOfWorkersWithARequestWaiting() {
        Selector s = selector(CostParameters.DEFAULTS);
        // Two requests that never get a first token, on two workers: from then on half the fleet has one waiting.
        RouteDecision a = route(s, prompt(1), false);
        double afterFirst = s.prefillDuty(); // the first arrival found nothing waiting
        RouteDecision b = route(s, prompt(2), false);
        assertThat(b.workerIndex()).isNotEqualTo(a.workerIndex());
        assertThat(afterFirst).isZero();
        double expected = (0.25 - 0) / 256.0; // the second found one of four
        assertThat(s.prefillDuty()).isCloseTo(expected, within(1e-15));
        // Every further request finishes at once, so each arrival sees the same two waiting of four.
        for (int i = 0; i < 2000; i++) {
            RouteDecision d = route(s, prompt(10 + i), false);
            s.onRequestEvent(new RequestEvent(d.requestId(), RequestEvent.Type.FINISHED, 0));
            expected += (0.5 - expected) / 256.0;
            if (i == 255) {
                assertThat(s.prefillDuty()).isCloseTo(expected, within(1e-12)).isBetween(0.3, 0.35); // ≈ 1 − 1/e of 0.5
            }
        }
        assertThat(s.prefillDuty()).isCloseTo(expected, within(1e-12)).isCloseTo(0.5, within(1e-3));
        // A preview reads the averages but is no arrival.
        s.preview(new RouteRequest("preview", null, null, null, prompt(5000), null, null, null, 512, 100, null, false));
        assertThat(s.prefillDuty()).isCloseTo(expected, within(1e-12));
    }

    @Test
    void theArrivalRateIsPerHealthyWorkerFromAnEwmaOfTheGaps() {
        Selector s = selector(CostParameters.DEFAULTS);
        route(s, prompt(1), true);
        assertThat(s.arrivalRatePerWorker()).isZero(); // one arrival: no gap yet
        for (int i = 0; i < 10; i++) {
            clock.addAndGet(50_000_000L); // 20 requests/s over 4 workers
            RouteDecision d = route(s, prompt(2 + i), false);
            s.onRequestEvent(new RequestEvent(d.requestId(), RequestEvent.Type.FINISHED, 0));
        }
        assertThat(s.arrivalRatePerWorker()).isCloseTo(5.0, within(1e-9));
        s.setDraining(0, true); // three healthy workers share the same arrivals
        assertThat(s.arrivalRatePerWorker()).isCloseTo(20.0 / 3, within(1e-9));
        s.setDraining(0, false);
        // The rate drops to 5 requests/s: the mean gap follows at 1/256 per arrival.
        double gap = 0.05;
        for (int i = 0; i < 1500; i++) {
            clock.addAndGet(200_000_000L);
            RouteDecision d = route(s, prompt(100 + i), false);
            s.onRequestEvent(new RequestEvent(d.requestId(), RequestEvent.Type.FINISHED, 0));
            gap += (0.2 - gap) / 256.0;
        }
        assertThat(s.arrivalRatePerWorker()).isCloseTo(1.0 / (gap * WORKERS), within(1e-9)).isCloseTo(1.25, within(0.01));
        // A preview is no arrival: a long pause before it does not move the rate.
        clock.addAndGet(60_000_000_000L);
        double before = s.arrivalRatePerWorker();
        s.preview(new RouteRequest("preview", null, null, null, prompt(9000), null, null, null, 512, 100, null, false));
        assertThat(s.arrivalRatePerWorker()).isEqualTo(before);
    }
}
