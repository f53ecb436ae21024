package io.tierroute.selector.sync.wire;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.avro.ReplicaAdmitted;
import io.tierroute.schemas.avro.ReplicaEventType;
import io.tierroute.schemas.avro.ReplicaRequestEvent;
import io.tierroute.schemas.avro.ReplicaSyncMessage;
import io.tierroute.selector.protocol.WorkerRegistry;
import io.tierroute.selector.scheduling.ReplicaAdmission;
import io.tierroute.selector.sync.NumberedMessage;

import java.util.ArrayList;
import java.util.List;

/**
 * A replica's outgoing message as every path carries it: a {@code ReplicaSyncMessage} (Avro), the same bytes on the
 * Kafka topic and in a direct datagram (its number travels beside it: a Kafka header, the datagram's frame). Built on a path's sending thread, never on a route's.
 *
 * @param replicaId  the sending replica's id
 * @param selectorId the sending selector's configured id (for logs)
 * @param scope      its deployment ({@code kafka.scope}): another scope's messages are skipped
 */
public record ReplicaSyncWire(String replicaId, String selectorId, String scope, WorkerRegistry workers) {

    /** The encoded message of {@code o}. */
    public byte[] encode(NumberedMessage o) {
        return Codecs.REPLICA_SYNC_MESSAGE.encode(message(o));
    }

    ReplicaSyncMessage message(NumberedMessage o) {
        Object body;
        if (o.admission() != null) {
            ReplicaAdmission a = o.admission();
            body = ReplicaAdmitted.newBuilder()
                    .setWorker(workers.name(a.worker()))
                    .setPromptTokens(a.promptTokens())
                    .setPredictedOutputTokens(a.predictedOutputTokens())
                    .setPrefillTokens(a.prefillTokens())
                    .setTierTokens(longs(a.tierTokens()))
                    .setPrefixMarks(longs(a.marks().toArray()))
                    .setPrefixMarkTokens(a.marks().tokensEach())
                    .setWorkflowId(a.workflowId())
                    .setExpectedNextTools(a.expectedNextTools())
                    .build();
        } else {
            body = ReplicaRequestEvent.newBuilder()
                    .setType(ReplicaEventType.valueOf(o.event().type().name()))
                    .setTokens(o.event().tokens())
                    .build();
        }
        return ReplicaSyncMessage.newBuilder().setReplicaId(replicaId).setSelectorId(selectorId).setScope(scope)
                .setTimestampMs(o.timestampMs()).setRequestId(o.requestId()).setMessage(body).build();
    }

    private static List<Long> longs(long[] values) {
        if (values == null) {
            return List.of();
        }
        List<Long> out = new ArrayList<>(values.length);
        for (long v : values) {
            out.add(v);
        }
        return out;
    }
}
