/**
 * In-flight state per worker: requests this selector routed (context length, predicted remaining
 * output {@code d̂}, waiting or running), combined with engine telemetry when a fresh sample exists.
 *
 * <p>{@code InFlightTracker} owns the authoritative per-request state; each {@code WorkerLoad}
 * keeps the incremental sums the cost model reads and publishes them as an immutable
 * {@code LoadView} (one volatile read per candidate on the route path). Mutations take the worker's
 * lock; reads never do. Under own accounting a {@code SharedPrefixKv} per worker counts the prompt prefix its running
 * requests share once, by their {@code PrefixMarks}.
 */
package io.tierroute.selector.sequences;
