package io.tierroute.selector.kafka;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Partitions added to followed topics under a running consumer. Our consumers assign partitions themselves (no group),
 * so a topic that grows ({@code kafka-topics --alter --partitions}) would otherwise go unread on its new partitions
 * until the session restarted: the keys that hash there (a worker's KV batches, a scope's snapshots) would stop
 * arriving with no gap, no error and no counter. Asked at most once a period; the consumer's metadata (refreshed every
 * {@code metadata.max.age.ms}, 5 min by default) is what tells it, so a new partition is read within that. One
 * consumer thread only.
 */
final class PartitionWatch {

    static final Duration DEFAULT_PERIOD = Duration.ofSeconds(10);

    private final List<String> topics;
    private final long periodNanos;
    private long nextCheckNanos;
    private final LongAdder added = new LongAdder();

    PartitionWatch(List<String> topics, Duration period) {
        this.topics = List.copyOf(topics);
        this.periodNanos = period.toNanos();
        this.nextCheckNanos = System.nanoTime() + periodNanos;
    }

    /**
     * The followed topics' partitions that are not in {@code assigned}, when a period has passed since the last look;
     * else (and when the metadata is not at hand) none.
     */
    List<TopicPartition> newPartitions(KafkaConsumer<?, ?> c, Collection<TopicPartition> assigned) {
        long now = System.nanoTime();
        if (now - nextCheckNanos < 0) {
            return List.of();
        }
        nextCheckNanos = now + periodNanos;
        List<TopicPartition> found = new ArrayList<>();
        for (String topic : topics) {
            for (TopicPartition tp : KafkaClients.partitions(c, topic, Duration.ofSeconds(1))) {
                if (!assigned.contains(tp)) {
                    found.add(tp);
                }
            }
        }
        added.add(found.size());
        return found;
    }

    /**
     * Assigns {@code added} besides {@code parts} (which it extends) and reads them from their beginning: every record
     * there came after the consumer started. The others keep their positions ({@code assign} keeps the state of a
     * partition still assigned).
     */
    static void readFromTheBeginning(KafkaConsumer<?, ?> c, List<TopicPartition> parts, List<TopicPartition> added) {
        parts.addAll(added);
        c.assign(parts);
        c.seekToBeginning(added);
    }

    /** Counts partitions found added another way (a restarted session that lists them first). */
    void counted(int partitions) {
        added.add(partitions);
    }

    /** Partitions found added since the start (over every session). */
    long added() {
        return added.sum();
    }
}
