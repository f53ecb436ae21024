/**
 * A part's own thread, as the parts that run one share it ({@code kafka}, {@code sync.direct}):
 * {@link io.tierroute.selector.threads.Uninterrupted} waits for it from a close whatever interrupts the caller, and
 * {@link io.tierroute.selector.threads.PartStop} records the {@link Error} that stopped it for good, for
 * {@code /healthz} and {@code tierroute_kafka_part_stopped}. Depends on nothing else in the selector, so any package
 * may use it without a cycle.
 */
package io.tierroute.selector.threads;
