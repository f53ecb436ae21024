package io.tierroute.selector.scheduling;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The admission queue's service order (lowest cost, aged; then arrival), its window read and its bounds. */
class AdmissionQueueTest {

    private static RouteRequest request(String id) {
        return new RouteRequest(id, null, null, null, new int[] {1, 2, 3}, null, null, null, 512, 100, null, false);
    }

    private static List<String> ids(List<AdmissionQueue.Pending> pending) {
        return pending.stream().map(p -> p.request().requestId()).toList();
    }

    private static final long MS = 1_000_000L;

    @Test
    void servesTheCheapestFirstAndEqualCostsInArrivalOrder() {
        AdmissionQueue q = new AdmissionQueue(10, 0, 0);
        q.offer(request("slow"), null, 4.0, 0);
        q.offer(request("fast-a"), null, 0.5, 1);
        q.offer(request("free"), null, -1.0, 2); // bonuses exceed costs: ranks first
        q.offer(request("fast-b"), null, 0.5, 3);
        q.offer(request("freer"), null, -2.0, 4); // a larger bonus: ahead of it (by value, not in arrival order)

        assertThat(q.peek().request().requestId()).isEqualTo("freer");
        assertThat(ids(q.firstInOrder(10))).containsExactly("freer", "free", "fast-a", "fast-b", "slow");
        assertThat(ids(q.firstInOrder(2))).as("a window, and the queue left as it is").containsExactly("freer", "free");
        assertThat(q.size()).isEqualTo(5);
    }

    @Test
    void removingOneLeavesTheOthersInOrderAndItsIdFreeToQueueAgain() {
        AdmissionQueue q = new AdmissionQueue(10, 0, 0);
        AdmissionQueue.Pending a = q.offer(request("a"), null, 2.0, 0);
        q.offer(request("b"), null, 1.0, 1);
        q.offer(request("c"), null, 1.0, 2);

        assertThat(q.remove(a)).isTrue();
        assertThat(q.remove(a)).as("already gone").isFalse();
        assertThat(ids(q.firstInOrder(5))).containsExactly("b", "c");
        assertThat(q.contains("a")).isFalse();
        assertThat(q.offer(request("a"), null, 1.5, 3)).isNotNull();
        assertThat(ids(q.firstInOrder(5))).containsExactly("b", "c", "a");
    }

    @Test
    void listsTheLongestWaitingFirstWhateverTheirCostAndForgetsTheOnesThatLeft() {
        AdmissionQueue q = new AdmissionQueue(10, 0, 0);
        AdmissionQueue.Pending old = q.offer(request("old-expensive"), null, 9.0, 0);
        q.offer(request("cheap"), null, 1.0, MS);
        q.offer(request("cheaper"), null, 0.5, 2 * MS);
        AdmissionQueue.Pending late = q.offer(request("late"), null, 3.0, 6 * MS);

        assertThat(ids(q.firstArrived(10))).containsExactly("old-expensive", "cheap", "cheaper", "late");
        assertThat(ids(q.firstArrived(2))).containsExactly("old-expensive", "cheap");
        assertThat(ids(q.firstInOrder(10))).as("the cost order is unchanged")
                .containsExactly("cheaper", "cheap", "late", "old-expensive");

        q.remove(old);
        assertThat(ids(q.firstArrived(10))).containsExactly("cheap", "cheaper", "late");
        assertThat(ids(q.expired(10 * MS, 7 * MS))).containsExactlyInAnyOrder("cheap", "cheaper"); // 9 and 8 ms
        assertThat(ids(q.firstArrived(10))).containsExactly("late");
        q.removeAll();
        assertThat(q.firstArrived(10)).isEmpty();
        assertThat(late.future()).isNotDone(); // removeAll hands them back; completing them is the caller's
    }

    @Test
    void refusesBeyondItsCapacityAndADuplicateId() {
        AdmissionQueue q = new AdmissionQueue(2, 0, 0);
        q.offer(request("a"), null, 1.0, 0);
        assertThatThrownBy(() -> q.offer(request("a"), null, 1.0, 1))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("already queued");
        q.offer(request("b"), null, 1.0, 2);
        assertThat(q.offer(request("c"), null, 9.0, 3)).as("full").isNull();
        assertThat(q.size()).isEqualTo(2);
    }

    @Test
    void expiredTakesOnlyThoseThatWaitedLongerThanTheLimit() {
        AdmissionQueue q = new AdmissionQueue(10, 0, 0);
        q.offer(request("old"), null, 1.0, 0);
        q.offer(request("new"), null, 2.0, 900);

        assertThat(ids(q.expired(1_000, 500))).containsExactly("old");
        assertThat(ids(q.firstInOrder(5))).containsExactly("new");
        assertThat(q.contains("old")).isFalse();
    }

    /**
     * Aged: an expensive request (1 s of cost) is served before cheap ones that arrive more than its cost ÷ the weight
     * after it; cheaper ones that arrive sooner still go first. Without the weight, cheap arrivals overtake it forever.
     */
    @Test
    void anExpensiveRequestIsOvertakenOnlyByCheapOnesArrivingBeforeItsDeadline() {
        for (double weight : new double[] {0, 0.5}) {
            AdmissionQueue q = new AdmissionQueue(10, weight, 5_000 * MS); // the selector started at 5 s
            long start = 6_000 * MS;
            q.offer(request("expensive"), null, 1_000_000, start); // 1 s of cost: at 0.5, due 2 s later
            q.offer(request("cheap-soon"), null, 10_000, start + 1_000 * MS);     // due 1.02 s after it: ahead
            q.offer(request("cheap-late"), null, 10_000, start + 2_500 * MS);     // due 2.52 s after it: behind
            List<String> order = ids(q.firstInOrder(5));
            if (weight == 0) {
                assertThat(order).as("cheapest first").containsExactly("cheap-soon", "cheap-late", "expensive");
            } else {
                assertThat(order).containsExactly("cheap-soon", "expensive", "cheap-late");
            }
        }
    }

    /** A drain's rank: the cost now, less the weight × the wait so far; nothing taken off at weight 0. */
    @Test
    void aDrainsRankCreditsTheWaitSoFar() {
        AdmissionQueue aged = new AdmissionQueue(10, 0.5, 0);
        AdmissionQueue.Pending p = aged.offer(request("r"), null, 300_000, 1_000 * MS);
        assertThat(aged.rankNow(p, 300_000, 1_400 * MS)).as("400 ms waited: 200 ms of cost taken off").isEqualTo(100_000);
        AdmissionQueue plain = new AdmissionQueue(10, 0, 0);
        AdmissionQueue.Pending r = plain.offer(request("r"), null, 300_000, 1_000 * MS);
        assertThat(plain.rankNow(r, 250_000, 1_400 * MS)).isEqualTo(250_000);
    }
}
