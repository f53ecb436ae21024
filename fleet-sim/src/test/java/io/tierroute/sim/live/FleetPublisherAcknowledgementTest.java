package io.tierroute.sim.live;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.Topics;
import io.tierroute.selector.protocol.KvEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.function.LongSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fleet's records are counted when the broker acknowledges them, not when they are handed to the producer: what
 * failed and what the close dropped are counted apart (before, every record handed over counted as published, and the
 * failures were counted where nothing read them).
 */
class FleetPublisherAcknowledgementTest {

    /** A worker's KV batch of one event: the cheapest record to build. */
    private static void kvBatch(FleetPublisher p, long hash) {
        p.kv(new KvEvent.Cleared(0), hash);
        p.flushKv();
    }

    @Test
    void recordsAreCountedAcknowledgedFailedOrDroppedAtTheClose() throws Exception {
        EmbeddedKafka kafka = EmbeddedKafka.start();
        try {
            for (Topics.Spec s : Topics.specs()) {
                kafka.createTopic(s.name(), s.partitions(), s.configs());
            }
            // Default timeouts while the broker is up: a cold producer on a loaded machine gets its acknowledgements.
            FleetPublisher acking = new FleetPublisher(kafka.bootstrapServers(), 1, "m");
            // Holds its records for a minute, and would retry them for two: what it holds at the close stays there
            // past the close's 5 s.
            FleetPublisher closing = new FleetPublisher(kafka.bootstrapServers(), Map.of("linger.ms", "60000"), 1, "m");
            FleetPublisher failing = null;
            try {
                kvBatch(acking, 1);
                kvBatch(acking, 2);
                kvBatch(closing, 1);
                await(acking::acknowledged, 2);
                assertThat(closing.acknowledged()).as("lingering").isZero();
                assertThat(closing.inFlight()).isEqualTo(1);
                assertThat(acking.kvBatchesSent()).isEqualTo(2);
                assertThat(acking.kvBatchesAcknowledged()).isEqualTo(2);
                assertThat(acking.inFlight()).isZero();

                kafka.close(); // the broker goes away
                closing.close(); // what it still holds after its 5 s is dropped
                // Sends fail within about a second with the broker gone (no metadata): counted as failed, not sent.
                failing = new FleetPublisher(kafka.bootstrapServers(), Map.of("delivery.timeout.ms", "1500",
                        "request.timeout.ms", "1000", "max.block.ms", "1000", "retry.backoff.ms", "50"), 1, "m");
                kvBatch(failing, 3);
                kvBatch(failing, 4);
                assertThat(failing.kvBatchesSent()).isEqualTo(2);
                await(failing::sendFailures, 2);
                assertThat(failing.kvBatchesAcknowledged()).as("handed over is not acknowledged").isZero();
                assertThat(failing.inFlight()).isZero();
                assertThat(failing.droppedAtClose()).isZero();
            } finally {
                acking.close();
                closing.close();
                if (failing != null) {
                    failing.close();
                }
            }
            assertThat(closing.closed()).isTrue();
            assertThat(closing.sendFailures()).isZero();
            assertThat(closing.droppedAtClose()).as("the record the close gave up on").isEqualTo(1);
            kvBatch(closing, 2); // offered after the close: dropped, not thrown
            assertThat(closing.droppedAtClose()).isEqualTo(2);
            assertThat(closing.sent()).isEqualTo(2);
            assertThat(closing.acknowledged()).isZero();
            assertThat(closing.inFlight()).isZero();
        } finally {
            kafka.close();
        }
    }

    private static void await(LongSupplier count, long expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (count.getAsLong() < expected && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(count.getAsLong()).isEqualTo(expected);
    }
}
