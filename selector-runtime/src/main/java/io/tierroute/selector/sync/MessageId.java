package io.tierroute.selector.sync;

import java.util.Objects;

/**
 * One replica-sync message's identity: the replica that sent it and the number it gave it. The same message may come
 * by two paths (the direct datagram and Kafka); the identity tells its second copy from a new message, so a copy
 * arriving after its request finished is not taken for the request id used again.
 *
 * @param replicaId the sending replica's id (a new one each run)
 * @param sequence  the sender's number for it, from 1, one per message, in the order it sent them
 */
public record MessageId(String replicaId, long sequence) {
    public MessageId {
        Objects.requireNonNull(replicaId, "replicaId");
        if (sequence < 1) {
            throw new IllegalArgumentException("sequence must be >= 1, got " + sequence);
        }
    }
}
