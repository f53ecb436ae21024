package io.tierroute.selector.sequences;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A request id reused while the tracker expires its older holder ({@link InFlightTracker#expire} takes the id out of
 * its map before the worker's): the newer request's load stays exact, and the older one's leaves once.
 */
class WorkerLoadReusedIdTest {

    private static InFlightRequest request(String id, int prompt, long at) {
        return new InFlightRequest(id, 0, prompt, 100, prompt, null, at);
    }

    @Test
    void anIdReusedDuringAnExpiryLeavesTheNewerRequestsLoadExact() {
        WorkerLoad load = new WorkerLoad(1_000_000);
        InFlightRequest expiring = request("x", 5_000, 1);
        load.admit(expiring);

        InFlightRequest newer = request("x", 300, 2); // admitted between the tracker's two removals
        load.admit(newer);
        assertThat(load.view().inFlight()).isEqualTo(1);
        assertThat(load.view().kvUsedTokens()).as("only the newer one's prompt").isEqualTo(300);
        assertThat(load.view().decodeTokens()).isEqualTo(100);

        assertThat(load.remove(expiring)).as("the expiry finds its request gone").isFalse();
        assertThat(load.apply(expiring, new RequestEvent("x", RequestEvent.Type.FINISHED, 1), 3))
                .isEqualTo(EventEffect.UNKNOWN);
        assertThat(load.view().inFlight()).isEqualTo(1);
        assertThat(load.view().kvUsedTokens()).isEqualTo(300);

        assertThat(load.apply(newer, new RequestEvent("x", RequestEvent.Type.FINISHED, 1), 4))
                .isEqualTo(EventEffect.LEFT_WITHOUT_OUTPUT); // it never had a first token
        LoadView v = load.view();
        assertThat(v.inFlight()).isZero();
        assertThat(v.waiting()).isZero();
        assertThat(v.kvUsedTokens()).isZero();
        assertThat(v.decodeTokens()).isZero();
        assertThat(v.queuedPrefillTokens()).isZero();
    }
}
