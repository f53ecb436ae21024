package io.tierroute.sim.live;

import org.HdrHistogram.Histogram;

import java.util.concurrent.atomic.LongAdder;

/**
 * What the live fleet counts, for its status line, summary and tests: requests routed, finished and failed, arrivals
 * that waited for a worker, those late binding held and what became of them, and the TTFT histogram. Written on the
 * simulation thread (and, for {@link #releasedOffThread}, the thread an operator's undrain runs on); read from any
 * thread, hence adders and a histogram read and written under its own lock.
 */
final class FleetCounters {

    final LongAdder routed = new LongAdder();
    final LongAdder finished = new LongAdder();
    /** Routed requests that failed; not the held ones refused before routing ({@link #lateBoundRefused}). */
    final LongAdder failed = new LongAdder();
    /** Arrivals that waited because no worker could take requests (all drained or unhealthy). */
    final LongAdder held = new LongAdder();
    /** Arrivals the selector held by late binding until a worker had room (its admission queue). */
    final LongAdder lateBound = new LongAdder();
    /** Held arrivals placed on another thread (an operator's undrain) and handed to the simulation thread. */
    final LongAdder releasedOffThread = new LongAdder();
    final LongAdder lateBoundPlaced = new LongAdder();
    final LongAdder lateBoundRefused = new LongAdder();
    private final Histogram ttft = new Histogram(3_600_000_000L, 3);

    /** Held requests handed to the simulator so far, placed or refused. */
    long releasesDispatched() {
        return lateBoundPlaced.sum() + lateBoundRefused.sum();
    }

    /** Records one request's TTFT (virtual µs), clamped to the histogram's range. */
    void recordTtft(long micros) {
        synchronized (ttft) {
            ttft.recordValue(Math.max(0, Math.min(ttft.getHighestTrackableValue(), micros)));
        }
    }

    /** TTFT quantile so far in seconds (NaN before the first token). */
    double ttftSeconds(double quantile) {
        synchronized (ttft) {
            return ttft.getTotalCount() == 0 ? Double.NaN : ttft.getValueAtPercentile(quantile * 100) / 1e6;
        }
    }
}
