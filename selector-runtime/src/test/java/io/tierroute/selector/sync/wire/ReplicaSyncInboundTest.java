package io.tierroute.selector.sync.wire;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.avro.ReplicaAdmitted;
import io.tierroute.schemas.avro.ReplicaSyncMessage;
import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.scheduling.ReplicaAdmission;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.scheduling.SelectorSettings;
import io.tierroute.selector.scheduling.WorkerSpec;
import io.tierroute.selector.sequences.PrefixMarks;
import io.tierroute.selector.sequences.RequestEvent;
import io.tierroute.selector.sync.NumberedMessage;
import io.tierroute.selector.sync.ReplicaSync;
import io.tierroute.selector.sync.wire.ReplicaSyncInbound.Outcome;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One path's intake, fed the bytes another replica's {@link ReplicaSyncWire} writes: what it hands to the sync, and
 * what it drops and why (a second copy above all, which both paths bring).
 */
class ReplicaSyncInboundTest {

    private final Selector selector = selector();
    private final ReplicaSync sync = new ReplicaSync(selector, new ReplicaSync.Transport() {
        @Override public void admitted(ReplicaAdmission admission) { }

        @Override public void event(RequestEvent event) { }
    }, System::nanoTime, Duration.ofSeconds(30), 1000);
    private final ReplicaSyncWire other = new ReplicaSyncWire("replica-b", "b", "default", selector.registry());

    private static Selector selector() {
        SelectorSettings settings = SelectorSettings.builder(List.of(WorkerSpec.of("w0", 1_000_000),
                WorkerSpec.of("w1", 1_000_000))).blockSize(16).seed(7L).ownKvAccounting(true).build();
        NaiveReferenceIndex index = new NaiveReferenceIndex(2);
        return new Selector(settings, index, new DirectIndexWriter(index),
                new ParameterStore(ParameterSet.defaults(2)), System::nanoTime);
    }

    private ReplicaSyncInbound inbound(long maxAgeMs) {
        return new ReplicaSyncInbound("test path", "replica-a", "default", selector.registry(), sync, maxAgeMs,
                maxAgeMs != Long.MAX_VALUE);
    }

    // The bytes carry no number (it travels beside them: a Kafka header, a datagram's frame); handle() is given it.
    private static NumberedMessage admission(String id, long atMs) {
        return new NumberedMessage(0, new ReplicaAdmission(id, 1, 1024, 64, 1024, null, PrefixMarks.NONE, null,
                List.of()), null, atMs);
    }

    private static NumberedMessage finish(String id) {
        return new NumberedMessage(0, null, new RequestEvent(id, RequestEvent.Type.FINISHED, 40),
                System.currentTimeMillis());
    }

    @Test
    void aSecondCopyIsDroppedEvenAfterItsRequestFinished() {
        ReplicaSyncInbound direct = inbound(5_000);
        ReplicaSyncInbound kafka = inbound(Long.MAX_VALUE);
        byte[] admitted = other.encode(admission("r1", System.currentTimeMillis()));
        assertThat(direct.handle(admitted, 1, () -> "here")).isEqualTo(Outcome.HANDED_OVER);
        assertThat(selector.inflight().view(1).inFlight()).isEqualTo(1);
        assertThat(kafka.handle(admitted, 1, () -> "here")).isEqualTo(Outcome.DUPLICATE);

        byte[] finished = other.encode(finish("r1"));
        assertThat(direct.handle(finished, 2, () -> "here")).isEqualTo(Outcome.HANDED_OVER);
        assertThat(selector.inflight().size()).isZero();
        // Kafka's copies come after the finish: neither admits r1 again nor counts as a late event.
        assertThat(kafka.handle(admitted, 1, () -> "here")).isEqualTo(Outcome.DUPLICATE);
        assertThat(kafka.handle(finished, 2, () -> "here")).isEqualTo(Outcome.DUPLICATE);
        assertThat(selector.inflight().size()).isZero();
        assertThat(sync.duplicateMessages()).isEqualTo(3);
        assertThat(sync.lateEvents()).isZero();
        assertThat(kafka.count(Outcome.DUPLICATE)).isEqualTo(3);
        assertThat(direct.count(Outcome.HANDED_OVER)).isEqualTo(2);

        // Without a number (a record written before numbering) the same copy reads as the id used again.
        assertThat(kafka.handle(admitted, 0, () -> "here")).isEqualTo(Outcome.HANDED_OVER);
        assertThat(selector.inflight().size()).isEqualTo(1);
    }

    @Test
    void anotherMessageOfTheSameReplicaUnderANewNumberIsTaken() {
        ReplicaSyncInbound in = inbound(5_000);
        assertThat(in.handle(other.encode(admission("r1", System.currentTimeMillis())), 1, () -> "")).isEqualTo(
                Outcome.HANDED_OVER);
        assertThat(in.handle(other.encode(finish("r1")), 2, () -> "")).isEqualTo(Outcome.HANDED_OVER);
        assertThat(in.handle(other.encode(admission("r1", System.currentTimeMillis())), 3, () -> "")).as(
                "the id used again").isEqualTo(Outcome.HANDED_OVER);
        assertThat(selector.inflight().size()).isEqualTo(1);
        // The same number from another replica is another message.
        ReplicaSyncWire third = new ReplicaSyncWire("replica-c", "c", "default", selector.registry());
        assertThat(in.handle(third.encode(admission("r2", System.currentTimeMillis())), 3, () -> "")).isEqualTo(
                Outcome.HANDED_OVER);
        assertThat(selector.inflight().size()).isEqualTo(2);
    }

    @Test
    void ownOtherScopeStaleAndCorruptMessagesAreCountedNotApplied() {
        ReplicaSyncInbound in = inbound(5_000);
        long now = System.currentTimeMillis();
        ReplicaSyncWire self = new ReplicaSyncWire("replica-a", "a", "default", selector.registry());
        ReplicaSyncWire elsewhere = new ReplicaSyncWire("replica-x", "x", "staging", selector.registry());
        assertThat(in.handle(self.encode(admission("r1", now)), 1, () -> "")).isEqualTo(Outcome.OWN);
        assertThat(in.handle(elsewhere.encode(admission("r2", now)), 1, () -> "")).isEqualTo(Outcome.OTHER_SCOPE);
        assertThat(in.handle(other.encode(admission("r3", now - 6_000)), 1, () -> "")).as("a replay").isEqualTo(
                Outcome.STALE);
        assertThat(in.handle(other.encode(admission("r4", now + 6_000)), 2, () -> "")).as("a clock far ahead")
                .isEqualTo(Outcome.STALE);
        assertThat(in.handle(new byte[] {1, 2, 3}, 3, () -> "")).isEqualTo(Outcome.CORRUPT);
        assertThat(selector.inflight().size()).isZero();
        assertThat(in.bad()).isEqualTo(3);
        assertThat(sync.duplicateMessages()).as("a stale message is not remembered as heard").isZero();
        // Kafka's path takes any age: what it reads back at the start is as old as its lookback.
        assertThat(inbound(Long.MAX_VALUE).handle(other.encode(admission("r3", now - 6_000)), 1, () -> ""))
                .isEqualTo(Outcome.HANDED_OVER);
    }

    @Test
    void aMessageTooManyNumbersOldIsStaleByDatagramAndTakenFromKafka() {
        ReplicaSyncInbound direct = inbound(5_000);
        ReplicaSyncInbound kafka = inbound(Long.MAX_VALUE);
        long now = System.currentTimeMillis();
        long latest = ReplicaSync.WINDOW_MESSAGES + 10L;
        assertThat(direct.handle(other.encode(admission("r1", now)), latest, () -> "")).isEqualTo(Outcome.HANDED_OVER);
        byte[] old = other.encode(admission("r2", now));
        assertThat(direct.handle(old, 10, () -> "")).as("a replayed datagram").isEqualTo(Outcome.STALE);
        assertThat(kafka.handle(old, 10, () -> "")).as("a record only Kafka carries").isEqualTo(Outcome.HANDED_OVER);
        assertThat(selector.inflight().size()).isEqualTo(2);
        assertThat(sync.tooOldToTell()).isEqualTo(2);
        assertThat(sync.duplicateMessages()).isZero();
    }

    @Test
    void eachPathsDelayMovesWithItsSecondCopiesToo() throws Exception {
        ReplicaSyncInbound direct = inbound(60_000);
        ReplicaSyncInbound kafka = inbound(Long.MAX_VALUE);
        direct.liveFrom(0);
        kafka.liveFrom(0);
        long now = System.currentTimeMillis();
        byte[] admitted = other.encode(admission("r1", now - 20));
        assertThat(direct.handle(admitted, 1, () -> "")).isEqualTo(Outcome.HANDED_OVER);
        byte[] late = other.encode(admission("r1", now - 30_000)); // the same message, as a slow Kafka brings it
        assertThat(kafka.handle(late, 1, () -> "")).isEqualTo(Outcome.DUPLICATE);
        assertThat(direct.lastDelayMillis()).isBetween(20L, 29_999L);
        assertThat(kafka.lastDelayMillis()).as("Kafka's lag shows though the datagram won").isGreaterThanOrEqualTo(30_000L);
    }

    @Test
    void anAdmissionWithATierCountBeyondItsPromptIsInvalidNotTaken() {
        ReplicaSyncInbound in = inbound(5_000);
        // What a faulty or hostile sender can put on the wire: one tier's count huge beside zeros, a sum within bounds
        // only if each is clamped first. Taken, it overflowed the worker's link price to a negative cost.
        ReplicaSyncMessage m = other.message(admission("r1", System.currentTimeMillis()));
        ((ReplicaAdmitted) m.getMessage()).setTierTokens(List.of(0L, Long.MAX_VALUE, 0L, 0L));
        assertThat(in.handle(Codecs.REPLICA_SYNC_MESSAGE.encode(m), 1, () -> "")).isEqualTo(Outcome.INVALID);
        assertThat(in.count(Outcome.INVALID)).isEqualTo(1);
        assertThat(selector.inflight().size()).isZero();
    }

    @Test
    void aMaximumAgeOutsideItsRangeIsRefused() {
        assertThatThrownBy(() -> inbound(0)).hasMessageContaining("maxAgeMs must be 1 to");
        assertThatThrownBy(() -> inbound(ReplicaSyncInbound.MAX_AGE_LIMIT_MS + 1)).hasMessageContaining("or none");
    }
}
