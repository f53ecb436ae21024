package io.tierroute.selector.ingest;

import io.tierroute.selector.index.InterceptedIndex;
import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.index.PrefixIndex;
import io.tierroute.selector.index.PrefixMatch;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KvEventPipelineTest {

    @Test
    void eventsFromManyThreadsAreAppliedByTheOneWriter() throws Exception {
        NaiveReferenceIndex index = new NaiveReferenceIndex(4);
        try (KvEventPipeline pipeline = new KvEventPipeline(index, 100_000)) {
            Thread[] producers = new Thread[4];
            for (int p = 0; p < producers.length; p++) {
                int worker = p;
                producers[p] = new Thread(() -> {
                    for (int i = 0; i < 1000; i++) {
                        long[] chain = {worker * 1_000_000L + i};
                        while (!pipeline.submit(List.of(new KvEvent.Stored(worker, Tier.HBM, false, 0, chain)))) {
                            Thread.onSpinWait();
                        }
                    }
                });
                producers[p].start();
            }
            for (Thread t : producers) {
                t.join();
            }
            assertThat(pipeline.awaitIdle(10, TimeUnit.SECONDS)).isTrue();
            assertThat(pipeline.appliedEvents()).isEqualTo(4000);
            assertThat(index.blockCount()).isEqualTo(4000);
            PrefixMatch m = new PrefixMatch(4);
            index.match(new long[]{2_000_999L}, 1, 0, m);
            assertThat(m.cumulativeBlocks(2, Tier.HBM.ordinal())).isEqualTo(1);
        }
    }

    @Test
    void aFullQueueRefusesEventBatchesAndCountsDroppedHints() throws Exception {
        NaiveReferenceIndex index = new NaiveReferenceIndex(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
        // A writer stuck on its first command lets the queue fill deterministically.
        PrefixIndex blocking = new InterceptedIndex(index, event -> {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try (KvEventPipeline pipeline = new KvEventPipeline(blocking, 2)) {
            List<KvEvent> one = List.of(new KvEvent.Cleared(0));
            assertThat(pipeline.submit(one)).isTrue();
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue(); // the writer took it and is now stuck
            assertThat(pipeline.backlog()).isZero();
            assertThat(pipeline.submit(one)).isTrue();
            assertThat(pipeline.submit(one)).isTrue();
            assertThat(pipeline.submit(one)).isFalse();
            pipeline.routed(0, new long[]{1}, 1, 0, 1);
            assertThat(pipeline.droppedRouted()).isEqualTo(1);
            release.countDown();
            assertThat(pipeline.awaitIdle(10, TimeUnit.SECONDS)).isTrue();
            assertThat(pipeline.appliedEvents()).isEqualTo(3);
        }
    }

    @Test
    void anEventThatThrowsCostsOnlyItselfNotTheRestOfItsBatch() throws Exception {
        NaiveReferenceIndex index = new NaiveReferenceIndex(1);
        try (KvEventPipeline pipeline = new KvEventPipeline(index, 100)) {
            assertThat(pipeline.submit(List.of(
                    new KvEvent.Stored(0, Tier.HBM, false, 0, new long[]{1}),
                    new KvEvent.Stored(3, Tier.HBM, false, 0, new long[]{2}), // no worker 3: the index refuses it
                    new KvEvent.Stored(0, Tier.HBM, false, 0, new long[]{3}),
                    new KvEvent.Stored(5, Tier.HBM, false, 0, new long[]{4}), // nor worker 5
                    new KvEvent.Stored(0, Tier.HBM, false, 0, new long[]{5})))).isTrue();
            assertThat(pipeline.awaitIdle(10, TimeUnit.SECONDS)).isTrue();
            assertThat(pipeline.failedEvents()).as("each counted, the first logged").isEqualTo(2);
            assertThat(pipeline.appliedEvents()).isEqualTo(3);
            assertThat(index.blockCount()).isEqualTo(3);
        }
    }

    @Test
    void anErrorStopsTheWriterWhichThenRefusesBatchesSayingWhy() throws Exception {
        NaiveReferenceIndex index = new NaiveReferenceIndex(1);
        PrefixIndex growthFails = InterceptedIndex.outOfMemoryOn(index, 2); // a table growing past the heap
        try (KvEventPipeline pipeline = new KvEventPipeline(growthFails, 100)) {
            assertThat(pipeline.submit(List.of(new KvEvent.Stored(0, Tier.HBM, false, 0, new long[]{1})))).isTrue();
            assertThat(pipeline.awaitIdle(10, TimeUnit.SECONDS)).isTrue();
            assertThat(pipeline.failure()).isNull();
            assertThat(pipeline.submit(List.of(new KvEvent.Stored(0, Tier.HBM, false, 0, new long[]{2})))).isTrue();
            assertThat(pipeline.awaitIdle(10, TimeUnit.SECONDS)).as("never applied").isFalse();

            assertThat(pipeline.failure()).isEqualTo("java.lang.OutOfMemoryError: Java heap space, applying a Stored "
                    + "event of worker 0");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (pipeline.writerAlive() && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(pipeline.writerAlive()).as("stopped, not spinning").isFalse();
            // Not "full" (a 503 the sender retries forever): a refusal that says what happened.
            assertThatThrownBy(() -> pipeline.submit(List.of(new KvEvent.Cleared(0))))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("the index writer has stopped (java.lang.OutOfMemoryError: Java heap space");
            pipeline.routed(0, new long[]{3}, 1, 0, 1);
            assertThat(pipeline.droppedRouted()).as("hints dropped, counted; the route goes on").isEqualTo(1);
            assertThat(pipeline.backlog()).isZero();
            assertThat(index.blockCount()).as("what it held stays readable").isEqualTo(1);
        }
    }

    @Test
    void aClosedPipelineRefusesWhatItWouldNeverApply() {
        KvEventPipeline pipeline = new KvEventPipeline(new NaiveReferenceIndex(1), 100);
        pipeline.close();
        assertThat(pipeline.submit(List.of(new KvEvent.Cleared(0)))).isFalse();
        assertThat(pipeline.backlog()).isZero();
    }

    @Test
    void closingAppliesEverythingAlreadyAccepted() {
        NaiveReferenceIndex index = new NaiveReferenceIndex(1);
        KvEventPipeline pipeline = new KvEventPipeline(index, 10_000);
        for (int i = 0; i < 5_000; i++) {
            assertThat(pipeline.submit(List.of(new KvEvent.Stored(0, Tier.HBM, false, 0, new long[]{i})))).isTrue();
        }
        pipeline.close();
        assertThat(pipeline.appliedEvents()).isEqualTo(5_000);
        assertThat(index.blockCount()).isEqualTo(5_000);
    }
}
