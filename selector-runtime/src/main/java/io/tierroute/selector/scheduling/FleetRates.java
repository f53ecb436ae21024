package io.tierroute.selector.scheduling;

/**
 * The two fleet-wide averages C_harm reads (see {@link CostModel}), kept by the selector from its own routes:
 * <ul>
 * <li>{@code D̄}, the prefill duty: an EWMA (weight 1/256 per route) of the share of healthy workers with a
 *     request waiting for its first token, read from the selector's load views when the request arrives;</li>
 * <li>{@code λ_w}, the arrival rate per healthy worker: {@code 1 / (ḡ·healthy)}, {@code ḡ} an EWMA (1/256) of
 *     the gaps between arrivals on the selector's clock (the simulator's is simulated time); 0 until two
 *     requests have arrived or while {@code ḡ} is 0.</li>
 * </ul>
 * 1/256 spans a few hundred routes: long enough to smooth single decisions, short enough to follow a load
 * change within seconds at the rates the simulator measures.
 *
 * <p>Thread-safe. {@code Selector.route} runs on every HTTP worker thread at once and holds no lock of its
 * own while it scores (only queued retries run under its drain lock), so the update is a short
 * {@code synchronized} block: three fields read and written, no allocation, no call out. Two EWMAs that must
 * move together (the gap and its timestamp) do not fit one atomic, and an uncontended monitor costs about
 * as much as a CAS loop; contention is bounded by the arrival rate, far below a lock's throughput.
 */
final class FleetRates {

    /** The EWMAs' span in routes: each arrival moves them 1/256 of the way to the new sample. */
    private static final double SPAN = 256.0;

    private double duty;
    private long lastArrivalNanos;
    private boolean anyArrival;
    private double gapSeconds = Double.NaN;

    /**
     * A request arrived at {@code nowNanos} and found {@code waitingShare} of the healthy workers with a
     * request waiting: updates both averages and writes them (the arrival included) into {@code ctx}.
     */
    synchronized void arrival(long nowNanos, double waitingShare, int healthy, RouteContext ctx) {
        // The arithmetic is that of the measured variant (fleet-sim/experiments/round-*.patch), operation for
        // operation, so the committed figures reproduce to the last digit.
        duty += (waitingShare - duty) / SPAN;
        // Concurrent routes read the clock before they take this lock, so an arrival may come in with an earlier
        // time than the last one: it counts as a gap of 0 and does not move the clock back (the gaps still add up
        // to the time elapsed). On one thread, as in the simulator, time only moves forward and this is exact.
        if (anyArrival) {
            double g = Math.max(0L, nowNanos - lastArrivalNanos) / 1e9;
            gapSeconds = Double.isNaN(gapSeconds) ? g : gapSeconds + (g - gapSeconds) / SPAN;
        }
        lastArrivalNanos = anyArrival ? Math.max(lastArrivalNanos, nowNanos) : nowNanos; // nanoTime may be < 0
        anyArrival = true;
        read(healthy, ctx);
    }

    /** Writes the current averages into {@code ctx} without counting an arrival (previews, queued retries). */
    synchronized void read(int healthy, RouteContext ctx) {
        ctx.prefillDuty(duty);
        ctx.arrivalRatePerWorker(arrivalRatePerWorker(gapSeconds, healthy));
    }

    /** {@code D̄}, for metrics. */
    synchronized double prefillDuty() {
        return duty;
    }

    /** {@code λ_w} with {@code healthy} workers, for metrics. */
    synchronized double arrivalRatePerWorker(int healthy) {
        return arrivalRatePerWorker(gapSeconds, healthy);
    }

    private static double arrivalRatePerWorker(double gapSeconds, int healthy) {
        return gapSeconds > 0 && healthy > 0 ? 1.0 / (gapSeconds * healthy) : 0.0;
    }
}
