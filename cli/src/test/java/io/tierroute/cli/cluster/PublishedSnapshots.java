package io.tierroute.cli.cluster;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ParameterSnapshot;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Every committed snapshot on tierroute.params, in publication order (the topic has one partition). */
final class PublishedSnapshots {

    private PublishedSnapshots() {}

    static List<ParameterSnapshot> read(String bootstrap) {
        TopicPartition tp = new TopicPartition(Topics.PARAMS, 0);
        List<ParameterSnapshot> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap,
                "isolation.level", "read_committed", "enable.auto.commit", "false",
                "max.partition.fetch.bytes", Integer.toString(16 << 20)),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
            while (c.position(tp, Duration.ofSeconds(30)) < end) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    if (r.value() != null) {
                        out.add(Codecs.PARAMETER_SNAPSHOT.decode(r.value()));
                    }
                }
            }
        }
        return out;
    }
}
