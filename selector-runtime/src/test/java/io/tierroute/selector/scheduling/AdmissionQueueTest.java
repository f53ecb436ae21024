package io.tierroute.selector.scheduling;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The admission queue's service order (best priority, then arrival), its window read and its bounds. */
class AdmissionQueueTest {

    private static RouteRequest request(String id) {
        return new RouteRequest(id, null, null, null, new int[] {1, 2, 3}, null, null, null, 512, 100, null, false);
    }

    private static List<String> ids(List<AdmissionQueue.Pending> pending) {
        return pending.stream().map(p -> p.request().requestId()).toList();
    }

    @Test
    void servesTheBestPriorityFirstAndEqualPrioritiesInArrivalOrder() {
        AdmissionQueue q = new AdmissionQueue(10);
        q.offer(request("slow"), null, AdmissionQueue.priority(4.0), 0);
        q.offer(request("fast-a"), null, AdmissionQueue.priority(0.5), 1);
        q.offer(request("free"), null, AdmissionQueue.priority(-1.0), 2); // bonuses exceed costs: ranks first
        q.offer(request("fast-b"), null, AdmissionQueue.priority(0.5), 3);

        assertThat(q.peek().request().requestId()).isEqualTo("free");
        assertThat(ids(q.firstInOrder(10))).containsExactly("free", "fast-a", "fast-b", "slow");
        assertThat(ids(q.firstInOrder(2))).as("a window, and the queue left as it is").containsExactly("free", "fast-a");
        assertThat(q.size()).isEqualTo(4);
    }

    @Test
    void removingOneLeavesTheOthersInOrderAndItsIdFreeToQueueAgain() {
        AdmissionQueue q = new AdmissionQueue(10);
        AdmissionQueue.Pending a = q.offer(request("a"), null, 2.0, 0);
        q.offer(request("b"), null, 1.0, 1);
        q.offer(request("c"), null, 1.0, 2);

        assertThat(q.remove(a)).isTrue();
        assertThat(q.remove(a)).as("already gone").isFalse();
        assertThat(ids(q.firstInOrder(5))).containsExactly("b", "c");
        assertThat(q.contains("a")).isFalse();
        assertThat(q.offer(request("a"), null, 0.5, 3)).isNotNull();
        assertThat(ids(q.firstInOrder(5))).containsExactly("b", "c", "a");
    }

    @Test
    void refusesBeyondItsCapacityAndADuplicateId() {
        AdmissionQueue q = new AdmissionQueue(2);
        q.offer(request("a"), null, 1.0, 0);
        assertThatThrownBy(() -> q.offer(request("a"), null, 1.0, 1))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("already queued");
        q.offer(request("b"), null, 1.0, 2);
        assertThat(q.offer(request("c"), null, 9.0, 3)).as("full").isNull();
        assertThat(q.size()).isEqualTo(2);
    }

    @Test
    void expiredTakesOnlyThoseThatWaitedLongerThanTheLimit() {
        AdmissionQueue q = new AdmissionQueue(10);
        q.offer(request("old"), null, 1.0, 0);
        q.offer(request("new"), null, 2.0, 900);

        assertThat(ids(q.expired(1_000, 500))).containsExactly("old");
        assertThat(ids(q.firstInOrder(5))).containsExactly("new");
        assertThat(q.contains("old")).isFalse();
    }
}
