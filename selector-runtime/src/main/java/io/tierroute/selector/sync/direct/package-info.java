/**
 * Replica sync's direct path: each numbered message also goes straight to every peer as one UDP datagram, signed with
 * the replicas' shared key, so the others hear an admission in a millisecond or two (loopback) instead of Kafka's several
 * (bench/RESULTS.md, "Several replicas"). Kafka still carries every message and is what a starting replica reads back;
 * a lost datagram costs only its delay, and the receiver drops whichever copy comes second.
 *
 * <ul>
 *   <li>{@link io.tierroute.selector.sync.direct.DirectPath}: the path, opened (its port bound) and started as one.</li>
 *   <li>{@code DatagramFrame}: the datagram's layout ({@code "TRS1"}, sequence, message, HMAC-SHA256) and its
 *       check.</li>
 *   <li>{@code DirectSender}: a bounded hand-off buffer (a route never waits) and the thread that encodes, signs and
 *       sends to every address of every peer.</li>
 *   <li>{@code DirectReceiver}: the thread that receives, refuses what is not signed with the key before decoding, and
 *       hands the rest to a {@code ReplicaSyncInbound}.</li>
 * </ul>
 *
 * <p>Concurrency: one sending and one receiving thread, each with its own {@code Mac}; counters are {@code LongAdder}s.
 * A close waits for both threads even from an interrupted caller ({@code threads.Uninterrupted}), so nothing is applied
 * after it returns; an {@link Error} stops either thread for good ({@code threads.PartStop}), reported as the Kafka
 * parts' stops are ({@code replica_direct_in}, {@code replica_direct_out}).
 */
package io.tierroute.selector.sync.direct;
