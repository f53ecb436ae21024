package io.tierroute.selector.kafka;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.scheduling.DecisionSink;
import io.tierroute.selector.scheduling.RouteDecision;
import io.tierroute.selector.scheduling.RouteRequest;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.nio.charset.StandardCharsets;
import java.util.Properties;

/**
 * Publishes one {@code RoutingDecision} per admitted route to {@code tierroute.decisions} (key = the
 * request id) with the chosen worker's cost breakdown and the fitting features.
 *
 * <p>It never blocks a route: {@link #decided} (on the route thread) only offers a small hand-off
 * record ({@link Pending}: the decision and the few request fields the record carries, not the prompt) to the bounded
 * buffer of a {@link HandOffProducer} ({@code tierroute-decisions} thread), which builds and encodes the Avro records
 * there and hands them to the Kafka producer ({@code linger}, {@code batchBytes}, compression). Every offered decision
 * ends acknowledged or in exactly one drop reason: {@code buffer_full}, {@code send_failed}, {@code closed} (and
 * {@code encode_failed} for a bug); a bootstrap host that does not resolve does not fail the start (the producer is
 * built again meanwhile).
 */
public final class DecisionPublisher implements DecisionSink, AutoCloseable {

    /**
     * A decision waiting to be sent: no prompt and no explained candidates, which the record does not carry, so that a
     * full buffer (an unreachable broker) holds {@code bufferSize} small records, not as many prompts.
     */
    record Pending(DecisionRecords.RequestFields request, RouteDecision decision, int candidates, long prefixGroupId,
                   long idleMs, long lastWorkerHeldTokens, long timestampMs) {

        static Pending of(RouteRequest request, RouteDecision decision, int candidates, long prefixGroupId, long idleMs,
                          long lastWorkerHeldTokens, long timestampMs) {
            return new Pending(DecisionRecords.RequestFields.of(request), decision.withoutCandidates(), candidates,
                    prefixGroupId, idleMs, lastWorkerHeldTokens, timestampMs);
        }
    }

    private final HandOffProducer<Pending> out;

    /**
     * @param settings     the kafka section (decisions settings, selector id, client properties)
     * @param defaultModel the model of requests that name none
     */
    public DecisionPublisher(KafkaSettings settings, String defaultModel) {
        KafkaSettings.Decisions d = settings.decisions();
        Properties tuning = new Properties();
        tuning.put(ProducerConfig.LINGER_MS_CONFIG, Long.toString(d.linger().toMillis()));
        tuning.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(d.batchBytes()));
        tuning.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, d.compression());
        String selectorId = settings.selectorId();
        this.out = new HandOffProducer<>(settings,
                new HandOffProducer.Names("decisions publisher", "decisions", Topics.DECISIONS, "tierroute-decisions"),
                "decisions", d.bufferSize(), tuning,
                p -> new ProducerRecord<>(Topics.DECISIONS, p.decision().requestId().getBytes(StandardCharsets.UTF_8),
                        Codecs.ROUTING_DECISION.encode(DecisionRecords.build(selectorId, defaultModel, p.request(),
                                p.decision(), p.candidates(), p.prefixGroupId(), p.idleMs(), p.lastWorkerHeldTokens(), p.timestampMs()))),
                p -> p.decision().requestId());
    }

    /** Whether the producer has been built (false while the bootstrap host does not resolve). */
    public boolean hasProducer() { return out.hasProducer(); }

    public DecisionPublisher start() {
        out.start();
        return this;
    }

    /** On the route thread: one non-blocking offer; a full buffer drops the decision (counted). */
    @Override
    public void decided(RouteRequest request, RouteDecision decision, int candidateCount, long prefixGroupId,
                        long idleSinceLastStepMs, long lastWorkerHeldTokens, long timestampMs) {
        out.offer(() -> Pending.of(request, decision, candidateCount, prefixGroupId, idleSinceLastStepMs,
                lastWorkerHeldTokens, timestampMs));
    }

    /**
     * Has what the producer holds for its linger sent as soon as the buffer is empty (a stop waiting for the last
     * decisions' acknowledgements; the selector's linger is 20 ms, a client file's may be seconds).
     */
    public void flushSoon() { out.flushSoon(); }

    /** Decisions handed over by routes. */
    public long offered() { return out.offered(); }
    /** Dropped because the buffer was full. */
    public long droppedBufferFull() { return out.droppedBufferFull(); }
    /** Dropped because the publisher was closing or closed, or its sending thread stopped on an error (left in the buffer, or offered after close). */
    public long droppedClosed() { return out.droppedClosed(); }
    /** Why an Error stopped the sending thread for good (nothing is published any more), or null while it runs. */
    public String stopped() { return out.stopped(); }
    /** Handed to the producer but not delivered (broker unreachable past the delivery timeout, …). */
    public long sendFailed() { return out.sendFailed(); }
    /** Could not be built or encoded (a bug; logged). */
    public long encodeFailed() { return out.encodeFailed(); }
    /** Handed to the producer. */
    public long sent() { return out.sent(); }
    /** Acknowledged by the broker. */
    public long acknowledged() { return out.acknowledged(); }
    /** Decisions waiting in the buffer. */
    public int backlog() { return out.backlog(); }
    public int capacity() { return out.capacity(); }

    /** Stops accepting, sends what is buffered (bounded), flushes and closes the producer. Idempotent. */
    @Override
    public void close() {
        out.close();
    }
}
