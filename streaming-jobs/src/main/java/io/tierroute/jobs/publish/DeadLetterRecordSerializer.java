package io.tierroute.jobs.publish;

import io.tierroute.schemas.AvroTrust;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.avro.DeadLetter;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/** A dead letter as a {@code tierroute.dead-letter} record, keyed by its source topic. */
public final class DeadLetterRecordSerializer implements KafkaRecordSerializationSchema<DeadLetter> {
    private static final long serialVersionUID = 1L;

    private final String topic;

    public DeadLetterRecordSerializer(String topic) {
        this.topic = topic;
    }

    @Override
    public void open(SerializationSchema.InitializationContext context, KafkaSinkContext sinkContext) {
        AvroTrust.install();
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(DeadLetter d, KafkaSinkContext context, Long timestamp) {
        return new ProducerRecord<>(topic, null, d.getTimestampMs(),
            d.getSourceTopic().toString().getBytes(StandardCharsets.UTF_8), Codecs.DEAD_LETTER.encode(d));
    }
}
