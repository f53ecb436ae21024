package io.tierroute.selector.kafka;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ReplicaAdmitted;
import io.tierroute.schemas.avro.ReplicaEventType;
import io.tierroute.schemas.avro.ReplicaRequestEvent;
import io.tierroute.schemas.avro.ReplicaSyncMessage;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.protocol.WorkerRegistry;
import io.tierroute.selector.scheduling.ReplicaAdmission;
import io.tierroute.selector.sequences.RequestEvent;
import io.tierroute.selector.sync.ReplicaSync;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * Replica sync's outbound half over Kafka: each admission of this replica and each request event reported to it
 * becomes a {@code ReplicaSyncMessage} on {@code tierroute.replica-sync} (key = the request id, so a request's
 * messages from one replica stay in order), through a {@link HandOffProducer} ({@code tierroute-replica-sync-out}
 * thread: a route never waits; past {@code replicaSync.bufferSize} a message is dropped and counted). No linger: what
 * the other replicas price is only as fresh as this (5 ms of linger put a warm link's delay at 25-45 ms against 7-25
 * without, on loopback), and the producer still batches what piles up while a request is in flight.
 */
public final class ReplicaSyncPublisher implements ReplicaSync.Transport, AutoCloseable {

    /** A message waiting to be sent: an admission or an event, and when it happened (ms since epoch). */
    private record Outgoing(ReplicaAdmission admission, RequestEvent event, long timestampMs) {
        String requestId() {
            return admission != null ? admission.requestId() : event.requestId();
        }
    }

    private final HandOffProducer<Outgoing> out;

    /**
     * @param replicaId this process's id on the topic (the consumer skips records carrying it)
     * @param workers   the names of the admissions' workers
     */
    public ReplicaSyncPublisher(KafkaSettings settings, String replicaId, WorkerRegistry workers) {
        Properties tuning = new Properties();
        tuning.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        tuning.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        String selectorId = settings.selectorId();
        String scope = settings.scope();
        this.out = new HandOffProducer<>(settings, new HandOffProducer.Names("replica sync publisher",
                "replica sync messages", Topics.REPLICA_SYNC, "tierroute-replica-sync-out"), "replica-sync",
                settings.replicaSync().bufferSize(), tuning,
                o -> new ProducerRecord<>(Topics.REPLICA_SYNC, o.requestId().getBytes(StandardCharsets.UTF_8),
                        Codecs.REPLICA_SYNC_MESSAGE.encode(message(replicaId, selectorId, scope, workers, o))),
                Outgoing::requestId);
    }

    public ReplicaSyncPublisher start() {
        out.start();
        return this;
    }

    @Override
    public void admitted(ReplicaAdmission admission) {
        long now = System.currentTimeMillis();
        out.offer(() -> new Outgoing(admission, null, now));
    }

    @Override
    public void event(RequestEvent event) {
        long now = System.currentTimeMillis();
        out.offer(() -> new Outgoing(null, event, now));
    }

    private static ReplicaSyncMessage message(String replicaId, String selectorId, String scope, WorkerRegistry workers,
                                              Outgoing o) {
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

    /** Messages handed over by routes and request threads. */
    public long offered() { return out.offered(); }
    /** Dropped because the buffer was full. */
    public long droppedBufferFull() { return out.droppedBufferFull(); }
    /** Dropped because the publisher was closing or closed. */
    public long droppedClosed() { return out.droppedClosed(); }
    /** Handed to the producer but not delivered. */
    public long sendFailed() { return out.sendFailed(); }
    /** Could not be built or encoded (a bug; logged). */
    public long encodeFailed() { return out.encodeFailed(); }
    /** Acknowledged by the broker. */
    public long acknowledged() { return out.acknowledged(); }
    /** Messages waiting in the buffer. */
    public int backlog() { return out.backlog(); }

    @Override
    public void close() {
        out.close();
    }
}
