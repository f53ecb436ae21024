package io.tierroute.sim.live;

import io.tierroute.sim.policy.SimRequest;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The live fleet's clock: paces the simulation's virtual time to the wall clock ({@code timeScale} simulated seconds
 * per wall second) by sleeping in the simulator's callbacks until the wall clock has caught up with
 * {@code start + virtual / timeScale}. It owns that pacing origin (which a pause moves, so that the fleet resumes where
 * it stopped instead of replaying the missed wall time), the selector's virtual clock, the mapping of virtual instants
 * to wall-clock ones that records are stamped with, and the stop flag: every sleep on the simulation thread ends the
 * run with {@link Stopped} once a stop was asked.
 */
final class FleetPacer {

    /** Thrown inside the simulation's callbacks to end a run early. */
    static final class Stopped extends RuntimeException {
        Stopped() {
            super("stopped", null, false, false);
        }
    }

    private final double timeScale;
    private final AtomicLong virtualMicros = new AtomicLong();
    private volatile boolean stop;
    private long startNanos;
    private long startEpochMs;
    private long originMicros;
    /** The selector's clock (virtual); volatile since HTTP threads read it too (dry runs, views). */
    private volatile long nowNanos;

    FleetPacer(double timeScale) {
        this.timeScale = timeScale;
    }

    /** Sets the pacing origin: the first request's arrival is due now. On the simulation thread, before the first event. */
    void begin(List<SimRequest> requests) {
        startNanos = System.nanoTime();
        startEpochMs = System.currentTimeMillis();
        originMicros = requests.isEmpty() ? 0 : requests.get(0).arrivalMicros();
    }

    /** Asks the run to end: the next sleep or callback on the simulation thread throws {@link Stopped}. */
    void requestStop() {
        stop = true;
    }

    /** The selector's clock: the virtual instant of the latest callback, in ns. */
    long nowNanos() { return nowNanos; }

    /** Simulated seconds elapsed. */
    double virtualSeconds() { return (virtualMicros.get() - originMicros) / 1e6; }

    /** Sleeps until the wall clock reaches the virtual instant {@code micros}; stops the run when asked. */
    void pace(long micros) {
        if (stop) {
            throw new Stopped();
        }
        virtualMicros.set(micros);
        nowNanos = micros * 1000;
        long target = wallNanos(micros);
        while (true) {
            long wait = target - System.nanoTime();
            if (wait <= 0) {
                return;
            }
            try {
                Thread.sleep(Math.min(50, Math.max(1, wait / 1_000_000)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Stopped();
            }
            if (stop) {
                throw new Stopped();
            }
        }
    }

    /** Moves the pacing origin by {@code pauseNanos}: the fleet resumes where it stopped. */
    void shift(long pauseNanos) {
        startNanos += pauseNanos;
        startEpochMs += pauseNanos / 1_000_000;
    }

    /** Sleeps 50 ms while the fleet waits for a worker; stops the run when asked. */
    void sleepBriefly() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Stopped();
        }
        if (stop) {
            throw new Stopped();
        }
    }

    /** The {@code System.nanoTime()} at which the virtual instant {@code micros} is due. */
    long wallNanos(long micros) {
        return startNanos + (long) ((micros - originMicros) * 1000 / timeScale);
    }

    /** The wall-clock epoch ms of the virtual instant {@code micros}. */
    long epochMs(long micros) {
        return startEpochMs + (long) ((micros - originMicros) / 1000.0 / timeScale);
    }
}
