package io.tierroute.selector.scheduling;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** D̄ and λ_w's averages on their own: out-of-order clocks and many threads at once (the HTTP server's case). */
class FleetRatesTest {

    private final RouteContext ctx = new RouteContext(1);

    @Test
    void anArrivalStampedBeforeTheLastCountsAsNoGapAndKeepsTheClock() {
        FleetRates r = new FleetRates();
        r.arrival(-500_000_000L, 0, 2, ctx); // System.nanoTime() may be negative
        r.arrival(-400_000_000L, 0, 2, ctx); // gap 0.1 s
        assertThat(ctx.arrivalRatePerWorker()).isCloseTo(1 / (0.1 * 2), within(1e-9));
        r.arrival(-450_000_000L, 0, 2, ctx); // read the clock before the previous one took the lock: gap 0
        double afterLate = 0.1 + (0 - 0.1) / 256.0;
        assertThat(ctx.arrivalRatePerWorker()).isCloseTo(1 / (afterLate * 2), within(1e-9));
        r.arrival(-300_000_000L, 0, 2, ctx); // 0.1 s after the latest stamp, not 0.15 s after the late one
        assertThat(ctx.arrivalRatePerWorker()).isCloseTo(1 / ((afterLate + (0.1 - afterLate) / 256.0) * 2), within(1e-9));
    }

    @Test
    void concurrentArrivalsKeepBothAveragesConsistent() throws InterruptedException {
        FleetRates r = new FleetRates();
        AtomicLong clock = new AtomicLong();
        int threads = 8;
        int perThread = 20_000;
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            all.add(new Thread(() -> {
                RouteContext own = new RouteContext(1);
                for (int i = 0; i < perThread; i++) {
                    // every arrival 1 ms after the previous one on the shared clock; half the fleet waiting
                    r.arrival(clock.addAndGet(1_000_000L), 0.5, 4, own);
                    assertThat(own.prefillDuty()).isBetween(0.0, 0.5);
                    assertThat(own.arrivalRatePerWorker()).isFinite().isNotNegative();
                }
            }));
        }
        all.forEach(Thread::start);
        for (Thread t : all) {
            t.join();
        }
        assertThat(r.prefillDuty()).isCloseTo(0.5, within(1e-9));
        // 1000 arrivals/s over 4 workers; reordering only turns some 1 ms gaps into 0 and the next into 2 ms, so the
        // mean gap stays about 1 ms.
        assertThat(r.arrivalRatePerWorker(4)).isCloseTo(250, within(50.0));
    }
}
