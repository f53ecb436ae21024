package io.tierroute.selector.kafka;

import io.tierroute.schemas.Topics;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a {@link ParameterLoader} session's catch-up ends: the end offsets of both topics read as it starts (the last
 * stable offsets: the consumer reads committed records only, as the job's sink is transactional). The catch-up has
 * ended once the consumer's position reaches them on every partition; an empty topic is caught up at once. It compares
 * {@code position >= endOffset}, never an equality with the last record's offset + 1: with {@code read_committed} the
 * last offsets of a partition may be a commit / abort marker or the records of an aborted transaction, which are never
 * returned, but a fetch moves the position past them. Loader thread only.
 */
final class CatchUpOffsets {

    private static final Logger log = LoggerFactory.getLogger(ParameterLoader.class); // the loader's messages, its logger

    private final Map<TopicPartition, Long> targets; // the partitions not reached yet

    private CatchUpOffsets(Map<TopicPartition, Long> targets) {
        this.targets = targets;
    }

    /** The end offsets of {@code parts} now, logged with the {@code scope} served. */
    static CatchUpOffsets read(KafkaConsumer<byte[], byte[]> c, List<TopicPartition> parts, String scope) {
        Map<TopicPartition, Long> targets = new HashMap<>(c.endOffsets(parts));
        log.info("params loader: catching up with {} and {} (end offsets {}), serving scope '{}'",
                Topics.PARAMS, Topics.CONTROL, targets, scope);
        return new CatchUpOffsets(targets);
    }

    /** Whether the consumer's position has reached the end offsets on every partition. */
    boolean reached(KafkaConsumer<byte[], byte[]> c) {
        // >=, not ==: markers and aborted records at the end are skipped, never returned.
        targets.entrySet().removeIf(e -> c.position(e.getKey()) >= e.getValue());
        return targets.isEmpty();
    }
}
