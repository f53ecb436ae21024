package io.tierroute.selector.kafka;

import io.tierroute.selector.config.KafkaSettings;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;

/** Client settings shared by the three parts. */
final class KafkaClients {

    private KafkaClients() {}

    /** Base properties: the user's extra properties, then bootstrap servers and client id. */
    static Properties base(KafkaSettings s, String clientSuffix) {
        Properties p = new Properties();
        p.putAll(s.properties());
        p.put("bootstrap.servers", s.bootstrapServers());
        p.put("client.id", s.clientId() + "-" + clientSuffix);
        return p;
    }

    /**
     * A consumer that is assigned partitions by hand: no group, no committed offsets, never creating a topic it looks
     * up. Every replica
     * reads every partition (its index and parameters are its own), and it starts from a position
     * it chooses, never from where a previous run stopped.
     */
    static KafkaConsumer<byte[], byte[]> assignedConsumer(KafkaSettings s, String clientSuffix) {
        return assignedConsumer(s, clientSuffix, "earliest");
    }

    /**
     * As {@link #assignedConsumer(KafkaSettings, String)}, for a reader that must know when the log it read is gone:
     * a position the log no longer holds (the topic deleted and created again, truncated, or the broker replaced by a
     * new cluster on the same address) throws an {@link org.apache.kafka.clients.consumer.InvalidOffsetException}
     * from {@code poll()} instead of rewinding silently to the beginning of the new log.
     */
    static KafkaConsumer<byte[], byte[]> historyConsumer(KafkaSettings s, String clientSuffix) {
        return assignedConsumer(s, clientSuffix, "none");
    }

    private static KafkaConsumer<byte[], byte[]> assignedConsumer(KafkaSettings s, String clientSuffix, String reset) {
        Properties p = base(s, clientSuffix);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, reset);
        // Never the broker's default (auto.create.topics.enable=true): a lookup before the topics exist would create
        // them with the broker's settings (tierroute.params deleted by retention instead of compacted, 1 MB records).
        // Whatever the user's properties say: `tierroute topics create` makes the topics, as for the jobs.
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        p.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(8 * 1024 * 1024));
        p.putIfAbsent(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(64 * 1024 * 1024));
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** An Admin client with the user's client settings (TLS, SASL); the caller closes it. */
    static Admin admin(KafkaSettings s, String clientSuffix) {
        return Admin.create(base(s, clientSuffix));
    }

    /**
     * The partitions of {@code topic}, or an empty list when the topic does not exist (yet) or the
     * broker did not answer in time.
     */
    static List<TopicPartition> partitions(KafkaConsumer<?, ?> c, String topic, Duration timeout) {
        List<TopicPartition> out = new ArrayList<>();
        try {
            List<PartitionInfo> infos = c.partitionsFor(topic, timeout);
            if (infos != null) {
                for (PartitionInfo i : infos) {
                    out.add(new TopicPartition(topic, i.partition()));
                }
            }
        } catch (WakeupException e) {
            throw e;
        } catch (RuntimeException e) {
            // unknown topic, timeout: the caller retries
        }
        return out;
    }

    /**
     * Why the consumer's position is no longer in the log ({@code tierroute.params was recreated or truncated
     * (partition 0: position 130, the log now ends at 38)}, or, every position below the log's start, cut by
     * retention), asking the log's ends for the message where it can.
     */
    static String outOfRange(KafkaConsumer<byte[], byte[]> c, InvalidOffsetException e) {
        Map<TopicPartition, Long> positions = e instanceof OffsetOutOfRangeException o
                ? o.offsetOutOfRangePartitions() : Map.of();
        Map<TopicPartition, Long> ends;
        Map<TopicPartition, Long> starts;
        try {
            ends = c.endOffsets(e.partitions(), Duration.ofSeconds(2));
            starts = c.beginningOffsets(e.partitions(), Duration.ofSeconds(2));
        } catch (RuntimeException unknown) {
            ends = Map.of();
            starts = Map.of();
        }
        TreeSet<String> topics = new TreeSet<>();
        List<String> where = new ArrayList<>();
        for (TopicPartition tp : e.partitions().stream().sorted(Comparator.comparing(TopicPartition::topic)
                .thenComparingInt(TopicPartition::partition)).toList()) {
            topics.add(tp.topic());
            where.add(tp + ": position " + (positions.containsKey(tp) ? positions.get(tp) : "unknown")
                    + (ends.containsKey(tp) ? ", the log now holds offsets " + starts.get(tp) + " to " + ends.get(tp) : ""));
        }
        Map<TopicPartition, Long> logStarts = starts;
        boolean behindStart = !positions.isEmpty() && positions.entrySet().stream()
                .allMatch(p -> logStarts.containsKey(p.getKey()) && p.getValue() < logStarts.get(p.getKey()));
        return String.join(" and ", topics) + (topics.size() > 1 ? " were" : " was") + (behindStart
                ? " cut below the positions reached (records deleted by retention before they were read) ("
                : " recreated or truncated (") + String.join("; ", where) + ")";
    }

    /**
     * The consumer's position on {@code tp} now, without blocking the loop (a position that must first be looked up
     * is not waited for), or -1 when it has none this round (a leader change, a reset): the next poll has one.
     */
    static long positionNow(KafkaConsumer<?, ?> c, TopicPartition tp) {
        try {
            return c.position(tp, Duration.ZERO);
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            return -1;
        }
    }
}
