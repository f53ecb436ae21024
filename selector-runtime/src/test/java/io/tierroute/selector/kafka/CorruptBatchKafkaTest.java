package io.tierroute.selector.kafka;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.BlockStored;
import io.tierroute.schemas.avro.KvEventBatch;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.selector.index.PrefixMatch;
import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.ingest.KvEventPipeline;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.WorkerRegistry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.tierroute.selector.kafka.KafkaFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A record batch whose CRC does not match (a damaged segment): poll() refuses it at the same offset every time, so a
 * reader that restarts its session there stalls for good. The readers skip it instead, count it as corrupt, and read
 * on; the KV consumer's sequence check rebuilds the worker whose batch was lost.
 */
class CorruptBatchKafkaTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @BeforeEach
    void setUp() throws Exception {
        KafkaFixture.resetTopics();
    }

    @Test
    void theKvConsumerSkipsACorruptBatchCountsItAndResyncsTheWorker() throws Exception {
        var k = KafkaFixture.broker();
        k.deleteTopics(List.of(Topics.KV_EVENTS));
        k.createTopic(Topics.KV_EVENTS, 1, java.util.Map.of()); // one partition: one segment to damage
        try (KafkaProducer<byte[], byte[]> p = KafkaFixture.producer()) {
            for (int seq = 0; seq < 6; seq++) { // one batch per send: batch i holds worker w0's sequence i
                KvEventBatch b = KvEventBatch.newBuilder().setWorker("w0").setModel("m").setLora(null).setNamespace(null)
                        .setSequence(seq).setTimestampMs(System.currentTimeMillis())
                        .setEvents(List.of(new BlockStored(Tier.HBM, null, List.of(10L + seq)))).build();
                KafkaFixture.send(p, Topics.KV_EVENTS, "w0", Codecs.KV_EVENT_BATCH.encode(b));
            }
        }
        SegmentCorruption.corruptBatch(k, Topics.KV_EVENTS, 2);

        RunPrefixIndex index = RunPrefixIndex.builder().workers(1).maxBlocks(1000).build();
        try (KvEventPipeline pipeline = new KvEventPipeline(index, 1024);
             KvEventConsumer c = new KvEventConsumer(KafkaFixture.settings()
                     .withKvEvents(new KafkaSettings.KvEvents(true, "earliest")), new WorkerRegistry(List.of("w0")),
                     pipeline).start()) {
            // 0, 1; the clear the gap (1 → 3) puts in front of 3; 3, 4, 5
            await(WAIT, () -> pipeline.appliedEvents() == 6, "the batches after the corrupt one applied");
            assertThat(c.badRecords(KvEventConsumer.BadReason.CORRUPT)).isEqualTo(1);
            assertThat(c.batches()).as("the corrupt batch is never read").isEqualTo(5);
            assertThat(c.resyncs(KvEventConsumer.ResyncReason.GAP)).isEqualTo(1);
            assertThat(c.restarts()).as("skipped in the session, not by restarting it").isZero();
            for (long h = 10; h < 16; h++) {
                PrefixMatch m = new PrefixMatch(1);
                index.match(new long[] {h}, 1, System.nanoTime(), m);
                assertThat(m.totalBlocks(0)).as("block %d: cleared with w0 at the gap unless stored after it", h)
                        .isEqualTo(h >= 13 ? 1 : 0);
            }
        }
    }

    @Test
    void theParameterLoaderSkipsACorruptSnapshotAndCatchesUp() throws Exception {
        try (KafkaProducer<byte[], byte[]> p = KafkaFixture.producer()) {
            for (long v = 1; v <= 3; v++) {
                KafkaFixture.publish(p, KafkaFixture.snapshot("default", v).build());
            }
        }
        SegmentCorruption.corruptBatch(KafkaFixture.broker(), Topics.PARAMS, 1); // version 2
        ParameterStore store = KafkaFixture.loaderStore();
        List<ParameterLoader> started = new ArrayList<>();
        try {
            ParameterLoader l = KafkaFixture.startLoader(KafkaFixture.settings(), store, 100, started, WAIT);
            assertThat(store.current().version()).isEqualTo(3);
            assertThat(l.badRecords(Topics.PARAMS, ParameterLoader.BadReason.CORRUPT)).isEqualTo(1);
            assertThat(l.restarts()).isZero();
            assertThat(l.status().lastError()).contains(Topics.PARAMS + "@0:1");
        } finally {
            started.forEach(ParameterLoader::close);
        }
    }
}
