/**
 * Replica sync: several selector replicas behind one load balancer price every worker's load from all of their
 * requests, not each from its own (DESIGN.md §1: telemetry as the base, the replicas' decisions on top, so two replicas
 * do not herd). {@link io.tierroute.selector.sync.ReplicaSync} is a replica's end of it, whatever carries the messages:
 * it sends this replica's admissions and reported request events through a
 * {@link io.tierroute.selector.sync.ReplicaSync.Transport}, and applies the other replicas' — an event whose
 * admission has not come yet waits for it ({@link io.tierroute.selector.sync.PendingEvents}). The Kafka transport is
 * {@code kafka.ReplicaSyncPublisher} and {@code kafka.ReplicaSyncConsumer} (topic {@code tierroute.replica-sync}); the
 * simulator's is in-process, with a delay.
 */
package io.tierroute.selector.sync;
