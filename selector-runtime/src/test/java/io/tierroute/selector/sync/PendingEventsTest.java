package io.tierroute.selector.sync;

import io.tierroute.selector.sequences.RequestEvent;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PendingEventsTest {

    private static RequestEvent first(String id) {
        return new RequestEvent(id, RequestEvent.Type.FIRST_TOKEN, 1);
    }

    @Test
    void aRequestsEventsComeBackInTheirOrderOnce() {
        PendingEvents p = new PendingEvents(1000, 10);
        p.park(first("a"), 0);
        p.park(new RequestEvent("a", RequestEvent.Type.FINISHED, 9), 1);
        p.park(first("b"), 2);
        assertThat(p.take("a")).extracting(RequestEvent::type)
                .containsExactly(RequestEvent.Type.FIRST_TOKEN, RequestEvent.Type.FINISHED);
        assertThat(p.take("a")).isEmpty();
        assertThat(p.size()).isEqualTo(1);
    }

    @Test
    void whenFullTheOldestRequestsEventsGo() {
        PendingEvents p = new PendingEvents(1000, 3);
        p.park(first("a"), 0);
        p.park(new RequestEvent("a", RequestEvent.Type.TOKENS, 5), 1);
        p.park(first("b"), 2);
        p.park(first("c"), 3);
        assertThat(p.dropped()).isEqualTo(2);
        assertThat(p.take("a")).isEmpty();
        assertThat(p.size()).isEqualTo(2);
    }

    @Test
    void requestsWhoseFirstEventIsOlderThanTheMaximumAgeExpire() {
        PendingEvents p = new PendingEvents(100, 10);
        p.park(first("a"), 0);
        p.park(first("b"), 50);
        p.park(new RequestEvent("a", RequestEvent.Type.FINISHED, 1), 60);
        assertThat(p.expire(120)).as("a's first event is 120 old, b's 70").isEqualTo(2);
        assertThat(p.expired()).isEqualTo(2);
        assertThat(p.take("b")).hasSize(1);
    }

    @Test
    void refusesNonPositiveBounds() {
        assertThatThrownBy(() -> new PendingEvents(0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PendingEvents(1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
