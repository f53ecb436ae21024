package io.tierroute.selector.kafka;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.LongPredicate;

/**
 * The partition bookkeeping of a consumer that reads every partition of one topic with no group, across the sessions
 * {@link SessionLoop} runs ({@link KvEventConsumer}, {@link ReplicaSyncConsumer}): waiting for the topic's partitions,
 * resuming a restarted session at the positions the last one reached, and remembering them. Its thread's only.
 */
final class SessionPositions {

    private final Map<TopicPartition, Long> next = new HashMap<>(); // next offsets, across sessions

    /**
     * The partitions of {@code topic}, asked every second (a WARN the first time none come: the broker does not answer,
     * or the topic does not exist); empty once {@code running} is false.
     *
     * @param pause waits the given milliseconds, false once stopped
     * @param who   the consumer in the log line
     */
    static List<TopicPartition> await(KafkaConsumer<?, ?> c, String topic, String bootstrapServers,
                                      BooleanSupplier running, LongPredicate pause, Logger log, String who) {
        List<TopicPartition> parts = new ArrayList<>();
        boolean warned = false;
        while (running.getAsBoolean() && parts.isEmpty()) {
            parts = KafkaClients.partitions(c, topic, Duration.ofSeconds(5));
            if (parts.isEmpty()) {
                if (!warned) {
                    log.warn("{}: no partitions of {} from {} yet (the broker does not answer, or the topic does not "
                            + "exist); retrying every second", who, topic, bootstrapServers);
                    warned = true;
                }
                pause.test(1000);
            }
        }
        return running.getAsBoolean() ? parts : List.of();
    }

    /**
     * Assigns {@code parts}, seeks each the last session reached to where it stopped, and returns the others: the
     * caller positions them (all of them on a first session).
     */
    List<TopicPartition> assignAndResume(KafkaConsumer<?, ?> c, List<TopicPartition> parts) {
        c.assign(parts);
        List<TopicPartition> fresh = new ArrayList<>();
        for (TopicPartition tp : parts) {
            Long n = next.get(tp);
            if (n != null) {
                c.seek(tp, n); // a restarted session: carry on where the last one stopped
            } else {
                fresh.add(tp);
            }
        }
        return fresh;
    }

    /** Whether an earlier session reached any position (this is a restarted session). */
    boolean resumed() {
        return !next.isEmpty();
    }

    /**
     * Resolves the lazy seeks of {@code parts} and keeps their positions, only once all are resolved: a session that
     * fails half-way leaves no partial set that the next would take for the one a restarted session has.
     */
    void positioned(KafkaConsumer<?, ?> c, Collection<TopicPartition> parts) {
        Map<TopicPartition, Long> at = new HashMap<>();
        for (TopicPartition tp : parts) {
            at.put(tp, c.position(tp));
        }
        next.putAll(at);
    }

    /** Keeps the positions reached on {@code parts} (after a poll, a seek). */
    void reached(KafkaConsumer<?, ?> c, Collection<TopicPartition> parts) {
        for (TopicPartition tp : parts) {
            next.put(tp, c.position(tp));
        }
    }

    /**
     * Seeks {@code parts} to their beginning; none when the list is empty. (Kafka's own {@code seekToBeginning} and
     * {@code seekToEnd} take an empty list for every assigned partition: a restarted session with no new partition, or
     * a lookback that found a position on each, would lose every position it had set.)
     */
    static void seekToBeginning(KafkaConsumer<?, ?> c, Collection<TopicPartition> parts) {
        if (!parts.isEmpty()) {
            c.seekToBeginning(parts);
        }
    }

    /** Seeks {@code parts} to their end; none when the list is empty (see {@link #seekToBeginning}). */
    static void seekToEnd(KafkaConsumer<?, ?> c, Collection<TopicPartition> parts) {
        if (!parts.isEmpty()) {
            c.seekToEnd(parts);
        }
    }
}
