/**
 * Replica sync's wire format, shared by every path: {@link io.tierroute.selector.sync.wire.ReplicaSyncWire} encodes an
 * outgoing admission or event as a {@code ReplicaSyncMessage} (Avro, the same bytes on the Kafka topic and in a direct
 * datagram), and {@link io.tierroute.selector.sync.wire.ReplicaSyncInbound} is one path's intake: decode, skip this
 * replica's own and another scope's, drop a second copy ({@code ReplicaSync.heard}) or a message past the path's
 * maximum age, validate as the HTTP API bounds the same values, hand over to the {@code ReplicaSync}.
 *
 * <p>Concurrency: the encoder is immutable; an inbound is called by its path's one thread and keeps only counters.
 */
package io.tierroute.selector.sync.wire;
