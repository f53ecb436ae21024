package io.tierroute.selector.kafka;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.AllCleared;
import io.tierroute.schemas.avro.BlockMoved;
import io.tierroute.schemas.avro.BlockStored;
import io.tierroute.schemas.avro.KvEventBatch;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.selector.index.PrefixMatch;
import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.ingest.KvEventPipeline;
import io.tierroute.selector.protocol.WorkerRegistry;
import org.apache.kafka.clients.producer.KafkaProducer;
import io.tierroute.selector.scheduling.WorkerSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static io.tierroute.selector.kafka.KafkaFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

/** KV events from a real broker reach the prefix index through the single-writer pipeline. */
class KvEventConsumerTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private final WorkerRegistry workers = new WorkerRegistry(List.of("w0", "w1", "w2"));
    private RunPrefixIndex index;
    private KvEventPipeline pipeline;
    private KvEventConsumer consumer;
    private KafkaProducer<byte[], byte[]> producer;

    @BeforeEach
    void setUp() throws Exception {
        KafkaFixture.resetTopics();
        index = RunPrefixIndex.builder().workers(3).maxBlocks(100_000).build();
        pipeline = new KvEventPipeline(index, 1024);
        producer = KafkaFixture.producer();
    }

    @AfterEach
    void tearDown() {
        if (consumer != null) {
            consumer.close();
        }
        pipeline.close();
        producer.close();
    }

    private static KvEventBatch batch(String worker, long seq, List<Object> events) {
        return KvEventBatch.newBuilder().setWorker(worker).setModel("m").setLora(null).setNamespace(null)
                .setSequence(seq).setTimestampMs(System.currentTimeMillis()).setEvents(events).build();
    }

    private void send(KvEventBatch b) {
        KafkaFixture.send(producer, Topics.KV_EVENTS, b.getWorker(), Codecs.KV_EVENT_BATCH.encode(b));
    }

    private PrefixMatch match(long... hashes) {
        PrefixMatch m = new PrefixMatch(3);
        index.match(hashes, hashes.length, System.nanoTime(), m);
        return m;
    }

    @Test
    void storedPrefixesAreFoundAndBadRecordsAreCountedNotFatal() throws Exception {
        // w2 has no CPU tier in its configuration: its move to CPU is indexed, and counted as unpriced
        var unpriced = new io.tierroute.selector.scheduling.UnpricedTiers(List.of(WorkerSpec.of("w0", 1000),
                WorkerSpec.of("w1", 1000), new WorkerSpec("w2", 1000, new double[io.tierroute.selector.protocol.Tier.COUNT],
                        false, 0, 0)), () -> io.tierroute.selector.params.ParameterSet.builder(3).build());
        consumer = new KvEventConsumer(KafkaFixture.settings(), workers, pipeline, unpriced).start();
        assertThat(consumer.awaitAssigned(WAIT)).isTrue();

        send(batch("w1", 0, List.of(new BlockStored(Tier.HBM, null, List.of(11L, 12L, 13L)))));
        send(batch("w2", 0, List.of(new BlockStored(Tier.HBM, null, List.of(11L, 12L)),
                new BlockMoved(Tier.HBM, Tier.CPU, List.of(12L)))));
        KafkaFixture.send(producer, Topics.KV_EVENTS, "w0", "garbage".getBytes());
        send(batch("ghost", 0, List.of(new BlockStored(Tier.HBM, null, List.of(11L)))));
        send(batch("w0", 0, List.of(new BlockStored(Tier.HBM, null, List.of())))); // no hashes: invalid
        send(batch("w1", 1, List.of(new BlockStored(Tier.CPU, 13L, List.of(14L)))));

        // 4 events + the clears of w0 for its two skipped batches (garbage keyed w0, the invalid one)
        await(WAIT, () -> consumer.batches() == 6 && pipeline.appliedEvents() == 6, "6 batches read, 6 events applied");
        PrefixMatch m = match(11L, 12L, 13L, 14L);
        assertThat(m.cumulativeBlocks(1, io.tierroute.selector.protocol.Tier.HBM.ordinal())).isEqualTo(3);
        assertThat(m.totalBlocks(1)).as("w1: 3 on HBM + 1 on CPU").isEqualTo(4);
        assertThat(m.cumulativeBlocks(2, io.tierroute.selector.protocol.Tier.HBM.ordinal())).isEqualTo(1);
        assertThat(m.totalBlocks(2)).as("w2: block 12 moved to CPU").isEqualTo(2);
        assertThat(m.totalBlocks(0)).isZero();
        assertThat(consumer.badRecords(KvEventConsumer.BadReason.CORRUPT)).isEqualTo(1);
        assertThat(consumer.badRecords(KvEventConsumer.BadReason.UNKNOWN_WORKER)).isEqualTo(1);
        assertThat(consumer.badRecords(KvEventConsumer.BadReason.INVALID)).isEqualTo(1);
        assertThat(consumer.resyncs(KvEventConsumer.ResyncReason.SKIPPED_BATCH)).isEqualTo(2);
        assertThat(consumer.sequenceGaps()).isZero();
        assertThat(unpriced.total()).as("w2's move to a CPU tier it is configured without; w1's CPU store is priced")
                .isEqualTo(1);

        send(batch("w1", 2, List.of(new AllCleared())));
        await(WAIT, () -> pipeline.appliedEvents() == 7, "clear applied");
        assertThat(match(11L, 12L, 13L, 14L).totalBlocks(1)).isZero();
    }

    /** A topic grown under a running consumer: the new partition is read from its beginning, nothing else twice. */
    @Test
    void partitionsAddedToTheTopicAreReadFromTheirBeginning() throws Exception {
        consumer = new KvEventConsumer(KafkaFixture.quickMetadataSettings(), workers, pipeline, null,
                Duration.ofMillis(200)).start();
        assertThat(consumer.awaitAssigned(WAIT)).isTrue();
        send(batch("w0", 0, List.of(new BlockStored(Tier.HBM, null, List.of(61L, 62L)))));
        await(WAIT, () -> pipeline.appliedEvents() == 1, "w0's batch applied");

        KafkaFixture.growTopic(Topics.KV_EVENTS, 5);
        KvEventBatch moved = batch("w1", 0, List.of(new BlockStored(Tier.HBM, null, List.of(71L, 72L, 73L))));
        KafkaFixture.sendTo(producer, Topics.KV_EVENTS, 4, "w1", Codecs.KV_EVENT_BATCH.encode(moved));

        await(WAIT, () -> pipeline.appliedEvents() == 2, "the batch on the new partition applied");
        assertThat(consumer.partitionsAdded()).isEqualTo(1);
        assertThat(match(71L, 72L, 73L).totalBlocks(1)).isEqualTo(3);
        send(batch("w0", 1, List.of(new BlockStored(Tier.HBM, 62L, List.of(63L)))));
        await(WAIT, () -> pipeline.appliedEvents() == 3, "the old partitions still read");
        assertThat(consumer.batches()).as("nothing read twice").isEqualTo(3);
        assertThat(consumer.sequenceGaps()).isZero();
        assertThat(match(61L, 62L, 63L).totalBlocks(0)).isEqualTo(3);
    }

    @Test
    void aSequenceGapARestartOrASkippedBatchClearsTheWorkerAndLaterEventsRebuildIt() throws Exception {
        consumer = new KvEventConsumer(KafkaFixture.settings(), workers, pipeline).start();
        assertThat(consumer.awaitAssigned(WAIT)).isTrue();
        // w0: a gap (1 → 5): batches 2..4 were lost, so blocks 11..13 may be gone; 21 arrives after the gap.
        send(batch("w0", 0, List.of(new BlockStored(Tier.HBM, null, List.of(11L, 12L)))));
        send(batch("w0", 1, List.of(new BlockStored(Tier.HBM, 12L, List.of(13L)))));
        send(batch("w0", 5, List.of(new BlockStored(Tier.HBM, null, List.of(21L)))));
        // w1: restarted (back to 0): its cache is empty, 31 and 32 are stale.
        send(batch("w1", 0, List.of(new BlockStored(Tier.HBM, null, List.of(31L, 32L)))));
        send(batch("w1", 0, List.of(new BlockStored(Tier.HBM, null, List.of(41L)))));
        // w2: an invalid batch in the middle: its events are lost, so 51 may be stale; 52 comes after.
        send(batch("w2", 0, List.of(new BlockStored(Tier.HBM, null, List.of(51L)))));
        send(batch("w2", 1, List.of(new BlockMoved(Tier.HBM, Tier.HBM, List.of(51L)))));
        send(batch("w2", 2, List.of(new BlockStored(Tier.HBM, null, List.of(52L)))));
        // w0 again: a sequence that goes back without being 0 (a repeated / reordered batch).
        send(batch("w0", 3, List.of(new BlockStored(Tier.HBM, null, List.of(61L)))));

        await(WAIT, () -> consumer.batches() == 9 && pipeline.appliedEvents() == 12,
                "9 batches read; 8 stores + 4 clears applied");
        assertThat(match(11L, 12L, 13L).totalBlocks(0)).as("w0's blocks from before the gap are gone").isZero();
        assertThat(match(21L).totalBlocks(0)).as("cleared again by the out-of-order batch").isZero();
        assertThat(match(61L).totalBlocks(0)).isEqualTo(1);
        assertThat(match(31L, 32L).totalBlocks(1)).as("w1's blocks from before its restart are gone").isZero();
        assertThat(match(41L).totalBlocks(1)).isEqualTo(1);
        assertThat(match(51L).totalBlocks(2)).as("w2's state before the skipped batch is gone").isZero();
        assertThat(match(52L).totalBlocks(2)).isEqualTo(1);
        assertThat(consumer.resyncs(KvEventConsumer.ResyncReason.GAP)).isEqualTo(1);
        assertThat(consumer.resyncs(KvEventConsumer.ResyncReason.OUT_OF_ORDER)).isEqualTo(1);
        assertThat(consumer.resyncs(KvEventConsumer.ResyncReason.RESTART)).isEqualTo(1);
        assertThat(consumer.resyncs(KvEventConsumer.ResyncReason.SKIPPED_BATCH)).isEqualTo(1);
        assertThat(consumer.sequenceGaps()).as("gap + out of order; a restart is not a gap").isEqualTo(2);
    }

    /**
     * A negative sequence (no engine numbers so) was applied as a batch and, read as "no batch yet", let the next
     * batch's jump pass unseen. It is now an invalid batch, lost: the worker cleared, its events not applied.
     */
    @Test
    void aNegativeSequenceIsAnInvalidBatchThatClearsTheWorker() throws Exception {
        consumer = new KvEventConsumer(KafkaFixture.settings(), workers, pipeline).start();
        assertThat(consumer.awaitAssigned(WAIT)).isTrue();
        send(batch("w0", 0, List.of(new BlockStored(Tier.HBM, null, List.of(71L)))));
        send(batch("w0", -7, List.of(new BlockStored(Tier.HBM, null, List.of(72L)))));
        send(batch("w0", 3, List.of(new BlockStored(Tier.HBM, null, List.of(73L)))));
        send(batch("w0", 9, List.of(new BlockStored(Tier.HBM, null, List.of(74L)))));
        await(WAIT, () -> consumer.batches() == 4 && match(74L).totalBlocks(0) == 1, "4 batches read, the last applied");
        assertThat(consumer.badRecords(KvEventConsumer.BadReason.INVALID)).isEqualTo(1);
        assertThat(match(71L).totalBlocks(0)).as("cleared by the invalid batch").isZero();
        assertThat(match(72L).totalBlocks(0)).as("its events are not applied").isZero();
        assertThat(match(73L).totalBlocks(0)).as("cleared again by the gap 3 → 9").isZero();
        assertThat(consumer.resyncs(KvEventConsumer.ResyncReason.SKIPPED_BATCH)).isEqualTo(1);
        assertThat(consumer.resyncs(KvEventConsumer.ResyncReason.GAP)).as("3 taken as is, 9 after it a gap").isEqualTo(1);
    }

    @Test
    void aProducersRetryOfTheLastBatchIsSkippedAndCountedWithoutClearingTheWorker() throws Exception {
        consumer = new KvEventConsumer(KafkaFixture.settings(), workers, pipeline).start();
        assertThat(consumer.awaitAssigned(WAIT)).isTrue();
        KvEventBatch second = batch("w0", 1, List.of(new BlockStored(Tier.HBM, 11L, List.of(12L))));
        send(batch("w0", 0, List.of(new BlockStored(Tier.HBM, null, List.of(11L)))));
        send(second);
        send(second); // re-sent as is: an at-least-once producer's retry
        send(batch("w0", 2, List.of(new BlockStored(Tier.HBM, 12L, List.of(13L)))));
        // w1: the same sequence with other bytes is no retry: its state is unknown, as for any step back
        send(batch("w1", 0, List.of(new BlockStored(Tier.HBM, null, List.of(31L)))));
        send(batch("w1", 1, List.of(new BlockStored(Tier.HBM, null, List.of(32L)))));
        send(batch("w1", 1, List.of(new BlockStored(Tier.HBM, null, List.of(33L)))));

        await(WAIT, () -> consumer.batches() == 7 && pipeline.appliedEvents() == 7,
                "7 batches read; 6 stores + 1 clear applied, the retry skipped");
        assertThat(match(11L, 12L, 13L).totalBlocks(0)).as("w0 keeps every block").isEqualTo(3);
        assertThat(consumer.duplicateBatches()).isEqualTo(1);
        assertThat(consumer.resyncs(KvEventConsumer.ResyncReason.OUT_OF_ORDER)).as("w1 only").isEqualTo(1);
        assertThat(match(31L).totalBlocks(1)).as("w1 cleared").isZero();
        assertThat(match(33L).totalBlocks(1)).isEqualTo(1);
    }

    @Test
    void aRecreatedTopicIsSaidCountedAndReadFromItsBeginningAndTheGapRebuildsTheWorker() throws Exception {
        consumer = new KvEventConsumer(KafkaFixture.settings(), workers, pipeline).start();
        assertThat(consumer.awaitAssigned(WAIT)).isTrue();
        send(batch("w0", 0, List.of(new BlockStored(Tier.HBM, null, List.of(11L)))));
        send(batch("w0", 1, List.of(new BlockStored(Tier.HBM, 11L, List.of(12L)))));
        send(batch("w0", 2, List.of(new BlockStored(Tier.HBM, 12L, List.of(13L)))));
        await(WAIT, () -> pipeline.appliedEvents() == 3, "the old log's 3 events applied");

        KafkaFixture.resetTopics(); // the log ends at 0 now: the consumer's position (3) is gone
        await(WAIT, () -> consumer.logResets() == 1, "the reset seen");
        // w0's batches 3 and 4 went with the old log (blocks 12, 13 may be gone); 5 is the new log's first.
        send(batch("w0", 5, List.of(new BlockStored(Tier.HBM, null, List.of(21L)))));
        send(batch("w1", 0, List.of(new BlockStored(Tier.HBM, null, List.of(31L)))));

        await(WAIT, () -> pipeline.appliedEvents() == 6, "w0's clear and store, w1's store applied");
        assertThat(match(11L, 12L, 13L).totalBlocks(0)).as("w0's blocks from the old log are gone").isZero();
        assertThat(match(21L).totalBlocks(0)).as("read from the new log's beginning").isEqualTo(1);
        assertThat(match(31L).totalBlocks(1)).isEqualTo(1);
        assertThat(consumer.resyncs(KvEventConsumer.ResyncReason.GAP)).isEqualTo(1);
        assertThat(consumer.logResets()).isEqualTo(1);
        assertThat(consumer.restarts()).as("not an error: the session carries on").isZero();
    }

    @Test
    void earliestReplaysWhatTheTopicHolds() throws Exception {
        send(batch("w0", 0, List.of(new BlockStored(Tier.HBM, null, List.of(21L, 22L)))));
        consumer = new KvEventConsumer(KafkaFixture.settings().withKvEvents(
                new io.tierroute.selector.config.KafkaSettings.KvEvents(true, "earliest")), workers, pipeline).start();
        await(WAIT, () -> pipeline.appliedEvents() == 1, "replayed event applied");
        assertThat(match(21L, 22L).totalBlocks(0)).isEqualTo(2);
    }

    @Test
    void aFullIndexWriterHoldsTheConsumerBackWithoutLosingEvents() throws Exception {
        pipeline.close();
        pipeline = new KvEventPipeline(index, 1); // one command at a time: the consumer must wait
        consumer = new KvEventConsumer(KafkaFixture.settings(), workers, pipeline).start();
        assertThat(consumer.awaitAssigned(WAIT)).isTrue();
        for (int i = 0; i < 200; i++) {
            KafkaFixture.send(producer, Topics.KV_EVENTS, "w0", Codecs.KV_EVENT_BATCH.encode(
                    batch("w0", i, List.of(new BlockStored(Tier.HBM, i == 0 ? null : 1000L + i - 1, List.of(1000L + i))))));
        }
        await(WAIT, () -> pipeline.appliedEvents() == 200, "every event applied");
        assertThat(consumer.sequenceGaps()).isZero();
        long[] chain = new long[200];
        for (int i = 0; i < 200; i++) {
            chain[i] = 1000L + i;
        }
        assertThat(match(chain).totalBlocks(0)).isEqualTo(200);
    }
}
