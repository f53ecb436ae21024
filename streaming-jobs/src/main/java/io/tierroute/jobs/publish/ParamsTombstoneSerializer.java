package io.tierroute.jobs.publish;

import io.tierroute.schemas.Topics;
import java.nio.charset.StandardCharsets;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A {@link ParamsTombstone} as a {@code tierroute.params} record: key {@link Topics#paramsKey}(scope, version), no value.
 * Every reader deletes that version (it can no longer become active). A named class, not a lambda (STACK.md).
 */
public final class ParamsTombstoneSerializer implements KafkaRecordSerializationSchema<ParamsTombstone> {
    private static final long serialVersionUID = 1L;

    private final String topic;

    public ParamsTombstoneSerializer(String topic) {
        this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(ParamsTombstone t, KafkaSinkContext context, Long timestamp) {
        byte[] key = Topics.paramsKey(t.scope(), t.version()).getBytes(StandardCharsets.UTF_8);
        return new ProducerRecord<byte[], byte[]>(topic, null, timestamp, key, null);
    }
}
