package io.tierroute.jobs.publish;

import io.tierroute.schemas.AvroTrust;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ParameterSnapshot;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A snapshot as a {@code tierroute.params} record: key {@link Topics#paramsKey}(scope, version),
 * value the single-object Avro encoding. A named class, not a lambda (STACK.md: lambdas break the
 * sink's lineage code).
 */
public final class ParamsRecordSerializer implements KafkaRecordSerializationSchema<ParameterSnapshot> {
    private static final long serialVersionUID = 1L;

    private final String topic;

    public ParamsRecordSerializer(String topic) {
        this.topic = topic;
    }

    @Override
    public void open(SerializationSchema.InitializationContext context, KafkaSinkContext sinkContext) {
        AvroTrust.install();
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(ParameterSnapshot s, KafkaSinkContext context, Long timestamp) {
        byte[] key = Topics.paramsKey(s.getScope().toString(), s.getVersion()).getBytes(StandardCharsets.UTF_8);
        return new ProducerRecord<>(topic, null, s.getCreatedAtMs(), key, Codecs.PARAMETER_SNAPSHOT.encode(s));
    }
}
