package io.tierroute.selector.http;

import static io.tierroute.selector.http.KvBatchSequences.Outcome.APPLIED;
import static io.tierroute.selector.http.KvBatchSequences.Outcome.EARLIER_RUN;
import static io.tierroute.selector.http.KvBatchSequences.Outcome.GAP;
import static io.tierroute.selector.http.KvBatchSequences.Outcome.NEW_RUN;
import static io.tierroute.selector.http.KvBatchSequences.Outcome.REFUSED;
import static io.tierroute.selector.http.KvBatchSequences.Outcome.RESTART;
import static io.tierroute.selector.http.KvBatchSequences.Outcome.SKIPPED;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The rules for numbered KV-event batches of one worker, with the index writer's hand-off as a list. */
class KvBatchSequencesTest {
    final KvBatchSequences sequences = new KvBatchSequences(2);
    /** What reached the writer: "c" for a clear in front, then the batch's sequence. */
    final List<String> writer = new ArrayList<>();

    KvBatchSequences.Outcome post(int worker, long sequence) {
        return post(worker, sequence, 7);
    }

    KvBatchSequences.Outcome post(int worker, long sequence, long bodyHash) {
        return sequences.submit(worker, sequence, bodyHash, clearFirst -> {
            writer.add((clearFirst ? "c" : "") + sequence);
            return true;
        }).outcome();
    }

    @Test
    void theNextBatchAppliesARetryOrALateOneIsSkippedAGapOrARestartClearsFirst() {
        assertThat(post(0, 4)).as("the first batch seen is taken as is").isEqualTo(APPLIED);
        assertThat(post(0, 5)).isEqualTo(APPLIED);
        assertThat(post(0, 5)).as("a retry of the batch applied").isEqualTo(SKIPPED);
        assertThat(post(0, 3)).as("overtaken").isEqualTo(SKIPPED);
        assertThat(post(0, 8)).as("6 and 7 never arrived").isEqualTo(GAP);
        assertThat(post(0, 7)).as("late: stale after 8").isEqualTo(SKIPPED);
        assertThat(post(0, 0)).as("the engine restarted").isEqualTo(RESTART);
        assertThat(post(0, 0)).as("a retry of batch 0: the same body").isEqualTo(SKIPPED);
        assertThat(post(0, 0, 8)).as("0 again with other events: restarted before its second batch").isEqualTo(RESTART);
        assertThat(post(0, 1)).isEqualTo(APPLIED);
        assertThat(post(0, 1, 9)).as("a number reused: not above the last").isEqualTo(SKIPPED);
        assertThat(post(1, 0)).as("another worker's series").isEqualTo(APPLIED);
        assertThat(writer).containsExactly("4", "5", "c8", "c0", "c0", "1", "0");
    }

    @Test
    void aBatchTheWriterRefusesLeavesTheSequenceSoItsRetryApplies() {
        assertThat(post(0, 0)).isEqualTo(APPLIED);
        KvBatchSequences.Judged refused = sequences.submit(0, 1, 7, clearFirst -> false);
        assertThat(refused.outcome()).isEqualTo(REFUSED);
        assertThat(refused.previous()).isZero();
        assertThat(post(0, 1)).as("the retry").isEqualTo(APPLIED);
        KvBatchSequences.Judged gapRefused = sequences.submit(0, 5, 7, clearFirst -> false);
        assertThat(gapRefused.outcome()).isEqualTo(REFUSED);
        assertThat(post(0, 5)).as("still a gap when retried: cleared then").isEqualTo(GAP);
        assertThat(writer).containsExactly("0", "1", "c5");
    }

    KvBatchSequences.Outcome postOfRun(long epoch, long sequence) {
        return sequences.submit(0, epoch, sequence, 7, clearFirst -> {
            writer.add((clearFirst ? "c" : "") + epoch + "/" + sequence);
            return true;
        }).outcome();
    }

    /** A batch of the run before a restart, still on its way after the new run's first, is told apart by its run. */
    @Test
    void aBatchOfAnEarlierRunIsSkippedAndALaterRunClearsWhateverItsNumber() {
        assertThat(postOfRun(100, 0)).isEqualTo(APPLIED);
        assertThat(postOfRun(100, 1)).isEqualTo(APPLIED);
        assertThat(postOfRun(200, 0)).as("the engine restarted").isEqualTo(NEW_RUN);
        assertThat(postOfRun(100, 2)).as("the old run's late batch: no gap, no clear").isEqualTo(EARLIER_RUN);
        assertThat(postOfRun(200, 1)).isEqualTo(APPLIED);
        assertThat(postOfRun(300, 5)).as("a later run clears whatever its first number").isEqualTo(NEW_RUN);
        assertThat(post(0, 6)).as("a batch naming no run: by its number").isEqualTo(APPLIED);
        assertThat(writer).containsExactly("100/0", "100/1", "c200/0", "200/1", "c300/5", "6");
    }

    @Test
    void aLostBatchClearsTheWorkerAndItsNextBatchIsTakenAsIs() {
        assertThat(post(0, 0)).isEqualTo(APPLIED);
        assertThat(post(0, 1)).isEqualTo(APPLIED);
        sequences.lost(0, () -> writer.add("clear"));
        assertThat(post(0, 5)).as("taken as is: the clear went in already").isEqualTo(APPLIED);
        sequences.lost(0, () -> false); // the writer was full: the clear goes in front of the next batch
        assertThat(post(0, 9)).isEqualTo(APPLIED);
        assertThat(post(0, 10)).isEqualTo(APPLIED);
        assertThat(writer).containsExactly("0", "1", "clear", "5", "c9", "10");
    }

    /**
     * Two threads post the same numbered batches at once: each reaches the writer once, in sequence order, and none
     * after a clear (whichever thread is ahead applies the next number; the one behind is skipped).
     */
    @Test
    void concurrentPostsOfOneWorkerReachTheWriterOnceInOrder() throws Exception {
        List<Long> reached = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                done.add(pool.submit(() -> {
                    start.await();
                    for (long s = 1; s <= 10_000; s++) { // from 1: a 0 after others would be a restart
                        long seq = s;
                        sequences.submit(1, seq, 7, clearFirst -> {
                            Thread.yield(); // widen the hand-off, so that the two threads overlap inside it
                            return reached.add(clearFirst ? -seq : seq);
                        });
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(reached).hasSize(10_000).isSorted().doesNotHaveDuplicates().allMatch(s -> s > 0);
    }
}
