package io.tierroute.selector.sequences;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Under own accounting {@code KV_used} counts a prompt prefix that running requests share once, as the engine holds
 * it; a waiting request's whole context counts (nothing is shared before it runs). Checked against a naive recount
 * over the requests in flight.
 */
class SharedPrefixKvTest {

    private static final long SECOND = 1_000_000_000L;
    private static final int GRANULE = 2048;

    private final InFlightTracker tracker = new InFlightTracker(new long[]{1_000_000, 1_000_000}, 600 * SECOND, 5 * SECOND);

    SharedPrefixKvTest() {
        tracker.ownKvAccounting(true);
    }

    /** Marks of a prompt whose first {@code shared} granules are family {@code family}'s and the rest its own. */
    private static PrefixMarks marks(int family, int shared, int own, int id) {
        long[] hashes = new long[shared + own];
        for (int i = 0; i < hashes.length; i++) {
            hashes[i] = i < shared ? family * 1_000L + i : -(id * 1_000L + i) - 1; // chained: a private granule's successors are private
        }
        return hashes.length == 0 ? PrefixMarks.NONE : new PrefixMarks(hashes, GRANULE);
    }

    private void admit(String id, int promptTokens, PrefixMarks m) {
        tracker.admit(id, 0, promptTokens, 100, promptTokens, null, m, SECOND);
    }

    private void event(String id, RequestEvent.Type type, int tokens) {
        assertThat(tracker.onEvent(new RequestEvent(id, type, tokens), SECOND)).isTrue();
    }

    private long kv() {
        return tracker.view(0).kvUsedTokens();
    }

    @Test
    void runningRequestsSharingAPrefixHoldItOnceAndWaitingOnesNeedTheirWholeContext() {
        admit("a", 3 * GRANULE + 100, marks(1, 3, 0, 1));
        admit("b", 3 * GRANULE + 300, marks(1, 2, 1, 2)); // shares two granules of a's three
        assertThat(kv()).as("both wait: each needs its whole prompt").isEqualTo(6L * GRANULE + 400);

        event("a", RequestEvent.Type.FIRST_TOKEN, 1);
        assertThat(kv()).as("a runs, b still waits").isEqualTo((3L * GRANULE + 101) + (3L * GRANULE + 300));

        event("b", RequestEvent.Type.FIRST_TOKEN, 1);
        assertThat(kv()).as("both run: the two shared granules once")
                .isEqualTo(3L * GRANULE + 101 + GRANULE + 301);

        event("a", RequestEvent.Type.TOKENS, 50);
        assertThat(kv()).as("output is a request's own").isEqualTo(3L * GRANULE + 150 + GRANULE + 301);

        event("a", RequestEvent.Type.FINISHED, 50);
        assertThat(kv()).as("b alone holds its prefix now").isEqualTo(3L * GRANULE + 301);
        event("b", RequestEvent.Type.FINISHED, 1);
        assertThat(kv()).isZero();
    }

    @Test
    void withoutOwnAccountingTheEnginesSampleStandsAndMarksChangeNothing() {
        tracker.ownKvAccounting(false);
        tracker.onTelemetry(new Telemetry(0, SECOND - 1, 0, 0, 250_000));
        admit("a", 2 * GRANULE, marks(1, 2, 0, 1));
        assertThat(kv()).as("sample plus what was sent since").isEqualTo(250_000L + 2 * GRANULE);
        event("a", RequestEvent.Type.FIRST_TOKEN, 1);
        assertThat(kv()).as("running: still its whole context beside the sample").isEqualTo(250_000L + 2 * GRANULE + 1);
    }

    @Test
    void marksBeyondThePromptAreDroppedAndTheRestStillShared() {
        admit("a", GRANULE + 10, marks(1, 2, 0, 1)); // a client that counted its blocks rounding up
        admit("b", GRANULE + 20, marks(1, 1, 0, 2));
        event("a", RequestEvent.Type.FIRST_TOKEN, 1);
        event("b", RequestEvent.Type.FIRST_TOKEN, 1);
        assertThat(kv()).as("the one granule within both prompts, once").isEqualTo(GRANULE + 11 + 21);
        assertThatThrownBy(() -> new PrefixMarks(new long[]{1}, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void expiredRequestsReleaseTheirPrefixOnEveryWorker() {
        admit("a", 2 * GRANULE, marks(1, 2, 0, 1));
        admit("b", 2 * GRANULE, marks(1, 2, 0, 2));
        tracker.admit("c", 1, 2 * GRANULE, 100, 2 * GRANULE, null, marks(1, 2, 0, 3), SECOND);
        for (String id : new String[] {"a", "b", "c"}) {
            event(id, RequestEvent.Type.FIRST_TOKEN, 1);
        }
        assertThat(kv()).isEqualTo(2L * GRANULE + 2);
        assertThat(tracker.view(1).kvUsedTokens()).as("another worker holds its own copy").isEqualTo(2L * GRANULE + 1);
        assertThat(tracker.expire(SECOND + 601 * SECOND, id -> { })).isEqualTo(3);
        assertThat(kv()).isZero();
        assertThat(tracker.view(1).kvUsedTokens()).isZero();
        admit("a", 2 * GRANULE, marks(1, 2, 0, 1));
        event("a", RequestEvent.Type.FIRST_TOKEN, 1);
        assertThat(kv()).as("the prefix enters again").isEqualTo(2L * GRANULE + 1);
    }

    @Test
    void prefixMarksAreEveryGranulesLastBlockHash() {
        long[] blocks = {10, 11, 12, 13, 14, 15, 16};
        PrefixMarks m = PrefixMarks.of(blocks, 7, 3, 16);
        assertThat(m.marks()).containsExactly(12, 15);
        assertThat(m.tokensEach()).isEqualTo(48);
        assertThat(m.tokens()).isEqualTo(96);
        assertThat(PrefixMarks.of(blocks, 2, 3, 16)).isSameAs(PrefixMarks.NONE);
    }

    /** Random admissions, first tokens, progress, finishes and failures, against a recount from scratch. */
    @Test
    void matchesANaiveRecountThroughAnyOrderOfEvents() {
        SplittableRandom rnd = new SplittableRandom(7);
        Map<String, Model> live = new HashMap<>();
        int next = 0;
        for (int step = 0; step < 5_000; step++) {
            int op = rnd.nextInt(10);
            if (op < 4 || live.isEmpty()) {
                String id = "r" + next;
                int family = rnd.nextInt(4);
                int shared = rnd.nextInt(5);
                int own = rnd.nextInt(3);
                int prompt = (shared + own) * GRANULE + rnd.nextInt(GRANULE);
                PrefixMarks m = marks(family, shared, own, next++);
                admit(id, prompt, m);
                live.put(id, new Model(prompt, m));
            } else {
                List<String> ids = new ArrayList<>(live.keySet());
                ids.sort(null);
                String id = ids.get(rnd.nextInt(ids.size()));
                Model r = live.get(id);
                if (op < 6) {
                    r.generated = Math.max(1, r.generated + rnd.nextInt(20));
                    r.waiting = false;
                    event(id, r.generated == 1 ? RequestEvent.Type.FIRST_TOKEN : RequestEvent.Type.TOKENS, r.generated);
                } else {
                    event(id, op < 9 ? RequestEvent.Type.FINISHED : RequestEvent.Type.FAILED, r.generated);
                    live.remove(id);
                }
            }
            assertThat(kv()).as("step " + step).isEqualTo(naive(live.values()));
        }
    }

    private static long naive(Iterable<Model> live) {
        long kv = 0;
        Set<Long> held = new HashSet<>();
        for (Model r : live) {
            long context = r.prompt + r.generated;
            if (r.waiting) {
                kv += context;
            } else {
                kv += context - r.marks.tokens();
                for (long h : r.marks.marks()) {
                    held.add(h);
                }
            }
        }
        return kv + held.size() * (long) GRANULE;
    }

    private static final class Model {
        final int prompt;
        final PrefixMarks marks;
        int generated;
        boolean waiting = true;

        Model(int prompt, PrefixMarks marks) {
            this.prompt = prompt;
            this.marks = marks;
        }
    }
}
