package io.tierroute.jobs.ingest;

import io.tierroute.schemas.AvroTrust;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.RecordCodec;
import io.tierroute.schemas.RecordDecodeException;
import io.tierroute.schemas.ReusingDecoder;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.CompletionLog;
import io.tierroute.schemas.avro.DeadLetter;
import io.tierroute.schemas.avro.EngineTelemetry;
import io.tierroute.schemas.avro.RoutingDecision;
import io.tierroute.schemas.avro.SnapshotControl;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.regex.Pattern;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Decodes the single-object Avro records of one input topic and validates them. Never throws: a
 * record that does not decode (garbage, unknown schema fingerprint, truncated body), is a tombstone
 * or fails {@link RecordValidator} becomes an {@link Inbound} carrying a {@link DeadLetter} with the
 * topic, partition, offset, original key and value bytes (at most {@link #MAX_COPIED_BYTES} of each)
 * and the reason, counted in the source's {@code deadLetters} metric; {@link InboundSplit} sends it
 * to the dead-letter side output.
 */
public final class RecordDecoder implements KafkaRecordDeserializationSchema<Inbound> {
    private static final long serialVersionUID = 1L;
    /**
     * Most bytes of the original key, and of the value, a dead letter keeps. The dead-letter sink is uncompressed and
     * its topic has the broker's default message limit (~1 MB): a bad record copied whole past it failed the sink with
     * RecordTooLargeException, and the restarted job met the same record again. The reason gives the original length.
     */
    static final int MAX_COPIED_BYTES = 64 * 1024;
    /**
     * Most characters of the message (an exception's, or the validator's) a dead letter's reason keeps: a decode path
     * that puts record content into its exception's message would otherwise make the reason as large as the record,
     * past the cap on the copied bytes. The reason says how many characters were cut.
     */
    static final int MAX_MESSAGE_CHARS = 1024;

    private final String topic;
    private final String consumer;
    private final long maxFutureSkewMs;
    private final String scopes; // the --scopes pattern, or null: compiled on each task
    private transient RecordValidator validator;
    // Decode into one reused record each: InboundSplit (chained, object reuse) copies it into a row before
    // the next record is decoded. Control records are kept by the fitting operator: decoded fresh.
    private transient ReusingDecoder<EngineTelemetry> telemetryDecoder;
    private transient ReusingDecoder<CompletionLog> completionDecoder;
    private transient ReusingDecoder<RoutingDecision> decisionDecoder;
    private transient DefaultedDecisionFields admissionWaitFields;
    private transient DefaultedDecisionFields queuedPrefillField;
    private transient DefaultedDecisionFields lastWorkerHeldField;
    private transient Counter deadLetters;
    private transient Counter decoded;

    /**
     * @param topic one of {@link Topics#TELEMETRY}, {@link Topics#COMPLETIONS}, {@link Topics#DECISIONS},
     *     {@link Topics#CONTROL}
     * @param consumer name written into dead letters (the job name)
     */
    public RecordDecoder(String topic, String consumer, long maxFutureSkewMs) {
        this(topic, consumer, maxFutureSkewMs, null);
    }

    /** As above, dead-lettering the records of a scope {@code scopes} (a regular expression; null: any) does not match. */
    public RecordDecoder(String topic, String consumer, long maxFutureSkewMs, String scopes) {
        if (!topic.equals(Topics.TELEMETRY) && !topic.equals(Topics.COMPLETIONS)
                && !topic.equals(Topics.DECISIONS) && !topic.equals(Topics.CONTROL)) {
            throw new IllegalArgumentException("not an input topic of the fitting job: " + topic);
        }
        this.topic = topic;
        this.consumer = consumer;
        this.maxFutureSkewMs = maxFutureSkewMs;
        this.scopes = scopes;
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) {
        init();
        deadLetters = context.getMetricGroup().counter("deadLetters");
        decoded = context.getMetricGroup().counter("decodedRecords");
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Inbound> out) {
        out.collect(decode(record, System.currentTimeMillis()));
    }

    private void init() {
        AvroTrust.install(); // Avro 1.12.2 class trust, on every TaskManager (STACK.md)
        validator = new RecordValidator(maxFutureSkewMs, scopes == null ? null : Pattern.compile(scopes));
        telemetryDecoder = Codecs.ENGINE_TELEMETRY.reusingDecoder();
        completionDecoder = Codecs.COMPLETION_LOG.reusingDecoder();
        decisionDecoder = Codecs.ROUTING_DECISION.reusingDecoder();
        admissionWaitFields = DefaultedDecisionFields.of(Codecs.ROUTING_DECISION, DefaultedDecisionFields.ADMISSION_WAIT);
        queuedPrefillField = DefaultedDecisionFields.of(Codecs.ROUTING_DECISION, DefaultedDecisionFields.QUEUED_PREFILL);
        lastWorkerHeldField = DefaultedDecisionFields.of(Codecs.ROUTING_DECISION,
            DefaultedDecisionFields.LAST_WORKER_HELD);
    }

    /**
     * Decodes one record; package-visible for tests. The telemetry, completion or decision record in the
     * result is overwritten by the next call on this decoder.
     */
    Inbound decode(ConsumerRecord<byte[], byte[]> record, long nowMs) {
        if (validator == null) {
            init();
        }
        Inbound in = new Inbound();
        in.partition = record.partition();
        in.offset = record.offset();
        in.eventTimeMs = record.timestamp();
        byte[] value = record.value();
        if (value == null) {
            return dead(in, record, "NullValue", "tombstone (null value) on " + topic, nowMs);
        }
        String invalid;
        try {
            switch (topic) {
                case Topics.TELEMETRY -> {
                    EngineTelemetry t = telemetryDecoder.decode(value);
                    invalid = validator.telemetry(t, nowMs);
                    in.telemetry = t;
                    in.eventTimeMs = t.getTimestampMs();
                }
                case Topics.COMPLETIONS -> {
                    CompletionLog c = completionDecoder.decode(value);
                    invalid = validator.completion(c, nowMs);
                    in.completion = c;
                    in.eventTimeMs = c.getFinishedTimeMs();
                }
                case Topics.DECISIONS -> {
                    RoutingDecision d = decisionDecoder.decode(value);
                    invalid = validator.decision(d, nowMs);
                    in.decision = d;
                    // decoded, so the header is well-formed: its fingerprint names the writer schema
                    long writer = RecordCodec.peekFingerprint(value).getAsLong();
                    in.admissionWaitUnknown = admissionWaitFields.lackedBy(writer);
                    in.queuedPrefillUnknown = queuedPrefillField.lackedBy(writer);
                    in.lastWorkerHeldUnsaid = lastWorkerHeldField.lackedBy(writer);
                    in.eventTimeMs = d.getTimestampMs();
                }
                default -> {
                    SnapshotControl c = Codecs.SNAPSHOT_CONTROL.decode(value);
                    invalid = validator.control(c);
                    in.control = c;
                    in.eventTimeMs = record.timestamp();
                }
            }
        } catch (RecordDecodeException e) {
            return dead(in, record, e.getClass().getSimpleName(), e.getMessage(), nowMs);
        } catch (RuntimeException e) { // a decode path we did not foresee must not fail the job either
            return dead(in, record, e.getClass().getSimpleName(), String.valueOf(e.getMessage()), nowMs);
        }
        if (invalid != null) {
            in.telemetry = null;
            in.completion = null;
            in.decision = null;
            in.control = null;
            in.eventTimeMs = record.timestamp();
            return dead(in, record, "InvalidValue", invalid, nowMs);
        }
        if (decoded != null) {
            decoded.inc();
        }
        return in;
    }

    private Inbound dead(Inbound in, ConsumerRecord<byte[], byte[]> record, String type, String message, long nowMs) {
        if (deadLetters != null) {
            deadLetters.inc();
        }
        in.deadLetter = DeadLetter.newBuilder()
            .setSourceTopic(topic)
            .setPartition(record.partition())
            .setOffset(record.offset())
            .setKey(prefix(record.key()))
            .setValue(prefix(record.value()))
            .setErrorType(type)
            .setReason(reason(message, record.key(), record.value()))
            .setConsumer(consumer)
            .setTimestampMs(nowMs)
            .build();
        return in;
    }

    private static ByteBuffer prefix(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        return ByteBuffer.wrap(bytes.length <= MAX_COPIED_BYTES ? bytes : Arrays.copyOf(bytes, MAX_COPIED_BYTES));
    }

    /** A dead letter's reason: the first {@link #MAX_MESSAGE_CHARS} of {@code message}, then what was cut of the record. */
    static String reason(String message, byte[] key, byte[] value) {
        return capped(String.valueOf(message)) + cut("key", key) + cut("value", value);
    }

    private static String capped(String message) {
        if (message.length() <= MAX_MESSAGE_CHARS) {
            return message;
        }
        int end = Character.isHighSurrogate(message.charAt(MAX_MESSAGE_CHARS - 1)) ? MAX_MESSAGE_CHARS - 1
            : MAX_MESSAGE_CHARS; // never half a character
        return message.substring(0, end) + " [message cut: " + (message.length() - end) + " more characters]";
    }

    /** The DeadLetter schema has no length field: a truncation is told in the reason. */
    private static String cut(String what, byte[] bytes) {
        return bytes == null || bytes.length <= MAX_COPIED_BYTES ? ""
            : " [" + what + " truncated to its first " + MAX_COPIED_BYTES + " of " + bytes.length + " bytes]";
    }

    @Override
    public TypeInformation<Inbound> getProducedType() {
        return TypeInformation.of(Inbound.class);
    }
}
