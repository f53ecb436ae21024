package io.tierroute.sim.live;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.CompletionLog;
import io.tierroute.schemas.avro.RequestStatus;
import io.tierroute.schemas.avro.TierTokens;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.sim.engine.EngineConfig;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.workload.RequestFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The live fleet publishes the engine's realised phases in its completion logs, over a real broker. */
class LiveFleetTest {

    private static EmbeddedKafka kafka;

    @BeforeAll
    static void broker() {
        kafka = EmbeddedKafka.start();
        for (Topics.Spec s : Topics.specs()) {
            kafka.createTopic(s.name(), s.partitions(), s.configs());
        }
    }

    @AfterAll
    static void stopBroker() {
        kafka.close();
    }

    private static long[] ids(long base) {
        return new long[] {base, base + 1, base + 2};
    }

    @Test
    void completionLogsCarryTheRealisedQueueWaitAndTierLoadTimes() throws Exception {
        // One worker with 4 blocks of HBM: "other" evicts "first" to the CPU tier, "again" loads it back over
        // the link; q1 and q2 arrive together and each needs all 4 blocks, so q2 queues until q1 finishes.
        EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(16).hbmCapacityTokens(64).cpuCapacityTokens(1600)
                .build();
        RequestFactory f = new RequestFactory(cfg.model(), 16);
        List<SimRequest> requests = List.of(
                f.request("first", 0, 49, ids(1), 1, 1, null),
                f.request("other", 1_000_000, 49, ids(10), 1, 1, null),
                f.request("again", 2_000_000, 49, ids(1), 1, 1, null),
                f.request("q1", 3_000_000, 49, ids(20), 10, 10, null),
                f.request("q2", 3_000_000, 49, ids(30), 10, 10, null));
        try (FleetPublisher publisher = new FleetPublisher(kafka.bootstrapServers(), 1, cfg.model())) {
            LiveFleet fleet = new LiveFleet(cfg, requests, 100, "test", new ParameterStore(ParameterSet.defaults(1)),
                    null, publisher, 1).start();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!fleet.done() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(fleet.done()).as("the live run ended").isTrue();
            assertThat(fleet.failure()).isNull();
        }

        Map<String, CompletionLog> logs = completions(requests.size());
        assertThat(logs).containsOnlyKeys("first", "other", "again", "q1", "q2");
        assertThat(logs.values()).allSatisfy(c -> {
            assertThat(c.getStatus()).isEqualTo(RequestStatus.OK);
            assertThat(c.getQueueWaitUs() + c.getTierLoadUs() + c.getPrefillUs()).isEqualTo(c.getTtftUs());
        });

        CompletionLog again = logs.get("again");
        long loadMicros = (long) Math.ceil(48 * cfg.bytesPerToken() / 64e3); // 64e9 B/s = 64e3 B/µs
        assertThat(again.getTierLoadUs()).isEqualTo(loadMicros);
        assertThat(again.getCachedTokens()).extracting(TierTokens::getTokens).containsExactly(48);
        assertThat(logs.get("first").getTierLoadUs()).isZero();

        assertThat(logs.get("q1").getQueueWaitUs()).isZero();
        // q2 waits for all of q1: its 49-token prefill and 9 decode steps.
        assertThat(logs.get("q2").getQueueWaitUs()).isGreaterThanOrEqualTo(logs.get("q1").getTtftUs());
        assertThat(logs.get("q2").getQueueWaitUs()).isGreaterThan(0);
    }

    private static Map<String, CompletionLog> completions(int expected) {
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrapServers());
        p.put("group.id", "live-fleet-test-" + UUID.randomUUID());
        p.put("auto.offset.reset", "earliest");
        Map<String, CompletionLog> out = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(Topics.COMPLETIONS));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (out.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    CompletionLog log = Codecs.COMPLETION_LOG.decode(r.value());
                    out.put(log.getRequestId().toString(), log);
                }
            }
        }
        return out;
    }
}
