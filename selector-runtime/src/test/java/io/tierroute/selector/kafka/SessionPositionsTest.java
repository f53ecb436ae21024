package io.tierroute.selector.kafka;

import io.tierroute.schemas.Topics;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SessionPositions} on a real broker: a restarted session resumes every partition where the last one stopped,
 * even when it has no new partition to position (Kafka's {@code seekToEnd} and {@code seekToBeginning} take an empty
 * list for all assigned partitions, which would have moved every resumed position).
 */
class SessionPositionsTest {

    @BeforeEach
    void setUp() throws Exception {
        KafkaFixture.resetTopics();
    }

    @Test
    void aRestartedSessionWithNoNewPartitionKeepsEveryResumedPosition() {
        List<TopicPartition> parts;
        SessionPositions positions = new SessionPositions();
        try (KafkaProducer<byte[], byte[]> p = KafkaFixture.producer()) {
            for (int partition = 0; partition < 4; partition++) {
                for (int i = 0; i < 3; i++) {
                    KafkaFixture.sendTo(p, Topics.REPLICA_SYNC, partition, "k" + i, new byte[] {(byte) i});
                }
            }
        }
        try (KafkaConsumer<byte[], byte[]> first = KafkaClients.historyConsumer(KafkaFixture.settings(), "test")) {
            parts = SessionPositions.await(first, Topics.REPLICA_SYNC, "test", () -> true, ms -> true,
                    LoggerFactory.getLogger(SessionPositionsTest.class), "test");
            List<TopicPartition> fresh = positions.assignAndResume(first, parts);
            assertThat(fresh).hasSize(4);
            assertThat(positions.resumed()).isFalse();
            fresh.forEach(tp -> first.seek(tp, 1)); // as if one record of each was read
            positions.positioned(first, parts);
        }
        try (KafkaConsumer<byte[], byte[]> second = KafkaClients.historyConsumer(KafkaFixture.settings(), "test")) {
            List<TopicPartition> fresh = positions.assignAndResume(second, parts);
            assertThat(fresh).as("every partition was read before").isEmpty();
            assertThat(positions.resumed()).isTrue();
            SessionPositions.seekToEnd(second, fresh);
            SessionPositions.seekToBeginning(second, fresh);
            for (TopicPartition tp : parts) {
                assertThat(second.position(tp)).as(tp.toString()).isEqualTo(1);
            }
        }
    }
}
