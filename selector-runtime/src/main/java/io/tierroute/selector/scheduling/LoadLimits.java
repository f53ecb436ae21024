package io.tierroute.selector.scheduling;

import io.tierroute.selector.sequences.LoadView;

/**
 * A worker's configured load limits ({@link WorkerSpec#maxInFlight}, {@link WorkerSpec#maxWaiting}): a hard filter. The
 * scoring reads them without a lock; the admission checks them again under the worker's lock
 * ({@link io.tierroute.selector.sequences.InFlightTracker#admitWithin}), so concurrent routes never fill a worker past them.
 */
final class LoadLimits {

    private LoadLimits() {}

    static boolean over(WorkerSpec spec, LoadView load) {
        return load.atLimit(spec.maxInFlight(), spec.maxWaiting());
    }

    /** Which limit {@code load} is over, for an explained route. */
    static String reason(WorkerSpec spec, LoadView load) {
        if (spec.maxInFlight() > 0 && load.limitInFlight() >= spec.maxInFlight()) {
            return "over load: " + load.limitInFlight() + " in flight ≥ " + spec.maxInFlight()
                    + (load.engineInFlight() > load.inFlight() ? " (the engine's telemetry: running and waiting)" : "");
        }
        return "over load: " + load.waiting() + " waiting ≥ " + spec.maxWaiting();
    }
}
