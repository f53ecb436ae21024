package io.tierroute.selector.sync;

import io.tierroute.selector.sync.ReplicaSync.Heard;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link SeenMessages} against a naive reference that remembers every number it was shown. */
class SeenMessagesTest {

    /** The reference: every number heard per sender, and the highest; "too old" past the window below it. */
    private static final class Naive {
        final long window;
        final Map<String, Set<Long>> heard = new HashMap<>();
        final Map<String, Long> highest = new HashMap<>();

        Naive(long window) {
            this.window = window;
        }

        Heard see(MessageId id) {
            long top = highest.getOrDefault(id.replicaId(), 0L);
            if (id.sequence() <= top && top - id.sequence() >= window) {
                return Heard.TOO_OLD;
            }
            highest.merge(id.replicaId(), id.sequence(), Math::max);
            return heard.computeIfAbsent(id.replicaId(), r -> new HashSet<>()).add(id.sequence()) ? Heard.FIRST
                    : Heard.COPY;
        }
    }

    @Test
    void agreesWithTheNaiveReferenceOnTwoPathsOfShuffledCopies() {
        for (long seed = 1; seed <= 20; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            int window = 256;
            SeenMessages seen = new SeenMessages(window, 8);
            Naive naive = new Naive(window);
            long[] next = new long[3];
            // Each sender's messages, each heard up to twice: the datagram soon, Kafka's copy up to 300 numbers later
            // (beyond the window now and then), some datagrams lost.
            java.util.List<MessageId> late = new java.util.ArrayList<>();
            for (int step = 0; step < 20_000; step++) {
                int sender = random.nextInt(3);
                MessageId id = new MessageId("replica-" + sender, ++next[sender]);
                if (random.nextInt(10) > 0) {
                    assertThat(seen.see(id)).as("seed %d, datagram %s", seed, id).isEqualTo(naive.see(id));
                }
                late.add(id);
                while (!late.isEmpty() && (late.size() > 300 || random.nextInt(4) == 0)) {
                    MessageId copy = late.remove(random.nextInt(late.size()));
                    assertThat(seen.see(copy)).as("seed %d, Kafka's copy of %s", seed, copy).isEqualTo(naive.see(copy));
                }
            }
        }
    }

    @Test
    void aReadBackOfManyOlderRecordsForgetsNothingHeardLive() {
        SeenMessages seen = new SeenMessages(1 << 21, 32);
        // Heard live by datagram: the other replica's messages 500,001 and 500,002.
        assertThat(seen.see(new MessageId("b", 500_001))).isEqualTo(Heard.FIRST);
        assertThat(seen.see(new MessageId("b", 500_002))).isEqualTo(Heard.FIRST);
        // Kafka's start-up read-back: 400,000 older records, then the copies of the two.
        for (long q = 100_001; q <= 500_000; q++) {
            assertThat(seen.see(new MessageId("b", q))).isEqualTo(Heard.FIRST);
        }
        assertThat(seen.see(new MessageId("b", 500_001))).isEqualTo(Heard.COPY);
        assertThat(seen.see(new MessageId("b", 500_002))).isEqualTo(Heard.COPY);
    }

    @Test
    void atTheWindowsEdge() {
        for (long jump : new long[] {63, 64, 65}) { // the window less one, the window, one more
            SeenMessages seen = new SeenMessages(64, 2);
            assertThat(seen.see(new MessageId("a", 10))).isEqualTo(Heard.FIRST);
            assertThat(seen.see(new MessageId("a", 10 + jump))).isEqualTo(Heard.FIRST);
            assertThat(seen.see(new MessageId("a", 10))).as("after a jump of %d", jump)
                    .isEqualTo(jump < 64 ? Heard.COPY : Heard.TOO_OLD);
            assertThat(seen.see(new MessageId("a", 11))).as("never heard, %d below the highest", jump - 1)
                    .isEqualTo(jump - 1 < 64 ? Heard.FIRST : Heard.TOO_OLD);
            assertThat(seen.see(new MessageId("a", 10 + jump))).isEqualTo(Heard.COPY);
        }
    }

    @Test
    void theLargestNumberEndsItsClearing() {
        SeenMessages seen = new SeenMessages(64, 2);
        assertThat(seen.see(new MessageId("a", Long.MAX_VALUE - 3))).isEqualTo(Heard.FIRST);
        assertThat(seen.see(new MessageId("a", Long.MAX_VALUE))).isEqualTo(Heard.FIRST);
        assertThat(seen.see(new MessageId("a", Long.MAX_VALUE - 3))).isEqualTo(Heard.COPY);
        assertThat(seen.see(new MessageId("a", Long.MAX_VALUE - 1))).isEqualTo(Heard.FIRST);
    }

    @Test
    void aJumpBeyondTheWindowStartsItAfreshAndTheLeastLatelyHeardSenderIsForgotten() {
        SeenMessages seen = new SeenMessages(64, 2);
        seen.see(new MessageId("a", 5));
        assertThat(seen.see(new MessageId("a", 1_000))).isEqualTo(Heard.FIRST);
        assertThat(seen.see(new MessageId("a", 5))).isEqualTo(Heard.TOO_OLD);
        assertThat(seen.see(new MessageId("a", 937))).as("inside the new window, never heard").isEqualTo(Heard.FIRST);
        assertThat(seen.see(new MessageId("a", 936))).as("just outside it").isEqualTo(Heard.TOO_OLD);
        seen.see(new MessageId("b", 1));
        seen.see(new MessageId("a", 1_001)); // a heard after b: b is the least lately heard
        seen.see(new MessageId("c", 1)); // a third sender: b forgotten
        assertThat(seen.see(new MessageId("a", 1_001))).isEqualTo(Heard.COPY);
        assertThat(seen.see(new MessageId("b", 1))).as("forgotten: taken again").isEqualTo(Heard.FIRST);
        assertThat(seen.forgottenSenders()).as("b, then c to make room for b again").isEqualTo(2);
    }
}
