/**
 * Replica sync: several selector replicas behind one load balancer price every worker's load from all of their
 * requests, not each from its own (DESIGN.md §1: telemetry as the base, the replicas' decisions on top, so two replicas
 * do not herd). {@link io.tierroute.selector.sync.ReplicaSync} is a replica's end of it, whatever carries the messages:
 * it sends this replica's admissions and reported request events through a
 * {@link io.tierroute.selector.sync.ReplicaSync.Transport}, and applies the other replicas' — an event whose
 * admission has not come yet waits for it ({@link io.tierroute.selector.sync.PendingEvents}). The Kafka transport is
 * {@code kafka.ReplicaSyncPublisher} and {@code kafka.ReplicaSyncConsumer} (topic {@code tierroute.replica-sync}); the
 * direct datagram path beside it is {@code sync.direct}; the simulator's is in-process, with a delay. With more than one
 * path, {@link io.tierroute.selector.sync.NumberingTransport} numbers each message once and hands it to every
 * {@link io.tierroute.selector.sync.NumberedTransport}, and a receiver drops the second copy of a
 * {@link io.tierroute.selector.sync.MessageId} ({@code ReplicaSync.heard}); the wire format both paths share is
 * {@code sync.wire}.
 */
package io.tierroute.selector.sync;
