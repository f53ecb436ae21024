package io.tierroute.selector.bench;

import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.sequences.RequestEvent;

/**
 * Requests held in flight on a {@link SelectorFixture}'s selector, decoding, as a gateway that proxies their
 * output streams reports them: {@link #postTokens} posts the next {@code tokens} event of one of them in turn.
 * Each request's count climbs by {@link #EVERY_TOKENS} up to the Mooncake mean output and starts over; the
 * tracker keeps the highest count, and applies every event in full whatever its value.
 * One thread per instance (not thread-safe).
 */
final class InFlightLoad {

    /** A gateway posts a {@code tokens} event every 16 decoded tokens (selector-runtime/README.md). */
    static final int EVERY_TOKENS = 16;
    /** Mooncake conversation trace, mean output tokens per request. */
    static final int MEAN_OUTPUT_TOKENS = 343;
    /** {@code tokens} events of a request of mean output: 343 / 16 = 21. */
    static final int EVENTS_PER_REQUEST = MEAN_OUTPUT_TOKENS / EVERY_TOKENS;

    private final Selector selector;
    private final String[] ids;
    private int next;
    private int round;

    /** Routes {@code count} requests (distinct ids, the fixture's prompts) and posts each one's first token. */
    InFlightLoad(SelectorFixture fx, int count) {
        this.selector = fx.selector;
        this.ids = new String[count];
        for (int i = 0; i < count; i++) {
            ids[i] = fx.selector.route(fx.request(i, "inflight-" + i)).join().requestId();
            selector.onRequestEvent(new RequestEvent(ids[i], RequestEvent.Type.FIRST_TOKEN, 1));
        }
    }

    /** Posts one {@code tokens} event for the next request in flight, through the API's own call. */
    boolean postTokens() {
        if (next == ids.length) {
            next = 0;
            round = round == EVENTS_PER_REQUEST - 1 ? 0 : round + 1;
        }
        return selector.onRequestEvent(new RequestEvent(ids[next++], RequestEvent.Type.TOKENS, (round + 1) * EVERY_TOKENS));
    }

    int size() {
        return ids.length;
    }
}
