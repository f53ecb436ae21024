package io.tierroute.selector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.AllCleared;
import io.tierroute.schemas.avro.BlockMoved;
import io.tierroute.schemas.avro.BlockRemoved;
import io.tierroute.schemas.avro.BlockStored;
import io.tierroute.schemas.avro.KvEventBatch;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.WorkerRegistry;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Fuzzes the KV-event boundary of the selector: a record from {@code tierroute.kv-events} is decoded,
 * validated and applied to a real prefix index. The property: a bad record is counted once as bad (or as
 * an unknown worker); whatever events come out apply without an exception; the index stays within
 * its block cap. Inputs start from a real batch (stored, moved, removed, cleared) re-encoded after the
 * fuzzer changes it, plus raw bytes.
 */
class KvEventBatchFuzzTest {

    private static final long MAX_BLOCKS = 4_096;
    private static final WorkerRegistry WORKERS = new WorkerRegistry(List.of("w0", "w1", "w2"));
    private static final RunPrefixIndex INDEX = RunPrefixIndex.builder().workers(WORKERS.size()).maxBlocks(MAX_BLOCKS).build();
    private static final DirectIndexWriter WRITER = new DirectIndexWriter(INDEX);
    // Never started: toEvents is the decode + validation step the consumer thread runs per record.
    private static final KvEventConsumer CONSUMER = new KvEventConsumer(
            io.tierroute.selector.config.KafkaSettings.defaults("127.0.0.1:9"), WORKERS, WRITER);
    private static final byte[] SEED = Codecs.KV_EVENT_BATCH.encode(seedBatch());
    private static long offset;

    private static KvEventBatch seedBatch() {
        return KvEventBatch.newBuilder().setWorker("w1").setModel("m").setLora(null).setNamespace(null)
                .setSequence(1).setTimestampMs(1_764_460_800_000L)
                .setEvents(List.of(
                        BlockStored.newBuilder().setTier(Tier.HBM).setParentHash(null)
                                .setBlockHashes(List.of(11L, 12L, 13L)).build(),
                        BlockMoved.newBuilder().setFromTier(Tier.HBM).setToTier(Tier.CPU)
                                .setBlockHashes(List.of(12L)).build(),
                        BlockRemoved.newBuilder().setTier(Tier.CPU).setBlockHashes(List.of(12L)).build(),
                        AllCleared.newBuilder().build()))
                .build();
    }

    @FuzzTest(maxExecutions = 20_000)
    void badBatchesAreCountedGoodOnesApply(FuzzedDataProvider data) {
        byte[] value = switch (data.consumeInt(0, 2)) {
            case 0 -> mutated(data);
            case 1 -> {
                byte[] body = data.consumeRemainingAsBytes();
                byte[] v = new byte[10 + body.length];
                System.arraycopy(SEED, 0, v, 0, 10); // a valid single-object header, any body
                System.arraycopy(body, 0, v, 10, body.length);
                yield v;
            }
            default -> data.consumeRemainingAsBytes();
        };
        long badBefore = CONSUMER.badRecords();
        List<KvEvent> events = CONSUMER.toEvents(new ConsumerRecord<>(Topics.KV_EVENTS, 0, offset++, null, value));
        long bad = CONSUMER.badRecords() - badBefore;
        // Each record is either good (events to apply) or counted once under one bad reason; a bad
        // batch of a known worker still yields a clear of that worker, whose state is now unknown.
        assertThat(bad).isBetween(0L, 1L);
        if (bad == 0) {
            assertThat(events).isNotNull();
        }
        if (events != null) {
            assertThat(WRITER.submit(events)).isTrue();
        }
        assertThat(INDEX.blockCount()).isLessThanOrEqualTo(MAX_BLOCKS);
    }

    /** The seed batch with fuzzer-chosen worker, sequence, tiers and hash lists. */
    private static byte[] mutated(FuzzedDataProvider data) {
        KvEventBatch b = seedBatch();
        b.setWorker(data.pickValue(List.of("w0", "w1", "w2", "nope", "")));
        b.setSequence(data.consumeLong());
        List<Object> events = new java.util.ArrayList<>();
        int n = data.consumeInt(0, 6);
        Tier[] tiers = Tier.values();
        for (int i = 0; i < n; i++) {
            List<Long> hashes = new java.util.ArrayList<>();
            int k = data.consumeInt(0, 40);
            for (int j = 0; j < k; j++) {
                hashes.add(data.consumeLong(0, 64));
            }
            events.add(switch (data.consumeInt(0, 3)) {
                case 0 -> BlockStored.newBuilder().setTier(data.pickValue(tiers))
                        .setParentHash(data.consumeBoolean() ? null : data.consumeLong(0, 64)).setBlockHashes(hashes).build();
                case 1 -> BlockMoved.newBuilder().setFromTier(data.pickValue(tiers)).setToTier(data.pickValue(tiers))
                        .setBlockHashes(hashes).build();
                case 2 -> BlockRemoved.newBuilder().setTier(data.pickValue(tiers)).setBlockHashes(hashes).build();
                default -> AllCleared.newBuilder().build();
            });
        }
        b.setEvents(events);
        return Codecs.KV_EVENT_BATCH.encode(b);
    }
}
