package io.tierroute.selector.kafka;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A record {@code poll()} refuses to return, and throws about at the same offset on every poll and every new session: a
 * batch whose CRC does not match (a damaged segment or copy), or, in a client that decodes, bytes its deserializer
 * refuses. Kafka leaves it to the reader to seek past it; a reader that restarted its session instead would stall there
 * for good. The readers skip it ({@link #skip}: the position + 1) and count it as a corrupt record; a batch of several
 * records takes as many skips.
 *
 * <p>Kafka 4.2 says which partition only in the message ({@code Received exception when fetching the next record from
 * <topic>-<partition>. If needed, please seek past the record to continue consumption.}, its cause {@code Record
 * batch for partition … at offset … is invalid, cause: Record is corrupt …}); the partition is taken from there, and
 * only when the consumer is assigned it. Anything else is not one of these.
 *
 * @param partition where
 * @param offset    the record skipped (the consumer's position there)
 * @param why       the client's words, with their cause
 */
record UnreadableRecord(TopicPartition partition, long offset, String why) {

    private static final Pattern FETCH = Pattern.compile(
            "^Received exception when fetching the next record from (.+)-(\\d+)\\. If needed, please seek past the record");

    /** The record {@code e} is about, at the consumer's position, or null when {@code e} is no such refusal. */
    static UnreadableRecord of(KafkaConsumer<?, ?> c, KafkaException e) {
        TopicPartition tp;
        if (e instanceof RecordDeserializationException d) {
            tp = d.topicPartition();
        } else {
            Matcher m = e.getMessage() == null ? null : FETCH.matcher(e.getMessage());
            if (m == null || !m.find()) {
                return null;
            }
            tp = new TopicPartition(m.group(1), Integer.parseInt(m.group(2)));
        }
        if (!c.assignment().contains(tp)) {
            return null;
        }
        long at = e instanceof RecordDeserializationException d ? d.offset() : c.position(tp, Duration.ofSeconds(5));
        return new UnreadableRecord(tp, at, SessionLoop.describe(e));
    }

    /** Moves the consumer past the record: the next poll reads what follows it. */
    void skip(KafkaConsumer<?, ?> c) {
        c.seek(partition, offset + 1);
    }

    /** {@code topic@partition:offset}, as the readers name a bad record. */
    String where() {
        return partition.topic() + "@" + partition.partition() + ":" + offset;
    }
}
