package io.tierroute.jobs.fit;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.jobs.JobSettings;
import io.tierroute.jobs.join.JoinedRow;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The publishing operator on Flink's operator test harness: versions continue across a state
 * snapshot and restore, control records are applied once in sequence order, every snapshot carries
 * the last applied sequence, and a pinned version stays the parent until an accepted snapshot follows
 * the unpin.
 */
class ScopeFitFunctionTest {
    private static final long TICK = 500;
    private final SplittableRandom rnd = new SplittableRandom(5);
    private long eventTime = 1_700_000_000_000L;

    private KeyedTwoInputStreamOperatorTestHarness<String, ScopeInput, SnapshotControl, ParameterSnapshot> harness(
            OperatorSubtaskState restore) throws Exception {
        return harness(restore, settings().build());
    }

    private static JobSettings.Builder settings() {
        return JobSettings.builder().set("bootstrap-servers", "unused:9092")
            .set("publish-interval", Duration.ofMillis(TICK)).set("forest-interval", Duration.ofHours(1));
    }

    private KeyedTwoInputStreamOperatorTestHarness<String, ScopeInput, SnapshotControl, ParameterSnapshot> harness(
            OperatorSubtaskState restore, JobSettings s) throws Exception {
        return harness(restore, s, io.tierroute.jobs.PublishedParams.NONE);
    }

    private KeyedTwoInputStreamOperatorTestHarness<String, ScopeInput, SnapshotControl, ParameterSnapshot> harness(
            OperatorSubtaskState restore, JobSettings s, io.tierroute.jobs.PublishedParams published) throws Exception {
        var h = new KeyedTwoInputStreamOperatorTestHarness<>(new KeyedCoProcessOperator<>(new ScopeFitFunction(s, published)),
            new InputScope(), new ControlScope(), Types.STRING);
        h.setup();
        if (restore != null) {
            h.initializeState(restore);
        }
        h.open();
        return h;
    }

    static final class InputScope implements KeySelector<ScopeInput, String> {
        @Override
        public String getKey(ScopeInput in) {
            return in.scope();
        }
    }

    static final class ControlScope implements KeySelector<SnapshotControl, String> {
        @Override
        public String getKey(SnapshotControl c) {
            return c.getScope().toString();
        }
    }

    /** Rows from a known linear truth (α_p 1, α_d 50, α_t 1, α_ho 100, α_wf 5000), 2 % noise. */
    private void rows(KeyedTwoInputStreamOperatorTestHarness<String, ScopeInput, SnapshotControl, ParameterSnapshot> h,
            int n) throws Exception {
        rows(h, n, 50);
    }

    /** {@code n} rows whose in-flight decode costs {@code alphaD} µs a token. */
    private void rows(KeyedTwoInputStreamOperatorTestHarness<String, ScopeInput, SnapshotControl, ParameterSnapshot> h,
            int n, double alphaD) throws Exception {
        for (int i = 0; i < n; i++) {
            JoinedRow r = FitHarness.row("default", eventTime += 10, rnd, alphaD);
            h.processElement1(new StreamRecord<>(ScopeInput.of(r)));
        }
    }

    private static SnapshotControl control(ControlAction a, Long version, long seq) {
        return SnapshotControl.newBuilder().setScope("default").setAction(a).setVersion(version).setReason("t")
            .setActor("test").setTimestampMs(0).setSequence(seq).build();
    }

    private static ParameterSnapshot publishOne(
            KeyedTwoInputStreamOperatorTestHarness<String, ScopeInput, SnapshotControl, ParameterSnapshot> h, long now)
            throws Exception {
        int before = h.extractOutputValues().size();
        h.setProcessingTime(now);
        List<ParameterSnapshot> out = h.extractOutputValues();
        assertThat(out).as("one snapshot per tick").hasSize(before + 1);
        return out.get(out.size() - 1);
    }

    @Test
    void versionsAndPinSurviveRestoreAndControlSequencesAreStamped() throws Exception {
        var h = harness(null);
        h.setProcessingTime(0);
        rows(h, 400);
        ParameterSnapshot v1 = publishOne(h, TICK);
        assertThat(v1.getVersion()).isEqualTo(1);
        assertThat(v1.getStatus()).as("reasons %s", v1.getRejectReasons()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(v1.getControlSequence()).isZero();

        rows(h, 100);
        ParameterSnapshot v2 = publishOne(h, 2 * TICK);
        assertThat(v2.getParentVersion()).isEqualTo(1);
        h.processElement2(new StreamRecord<>(control(ControlAction.PIN, 1L, 1)));
        h.processElement2(new StreamRecord<>(control(ControlAction.UNPIN, 1L, 1))); // same sequence: ignored
        ParameterSnapshot v3 = publishOne(h, 3 * TICK); // the control alone makes the next tick publish
        assertThat(v3.getVersion()).isEqualTo(3);
        assertThat(v3.getControlSequence()).isEqualTo(1);
        assertThat(v3.getParentVersion()).as("gated against the pinned version").isEqualTo(1);

        OperatorSubtaskState state = h.snapshot(1, 3 * TICK);
        h.close();

        var restored = harness(state);
        restored.setProcessingTime(4 * TICK - 1);
        rows(restored, 100);
        ParameterSnapshot v4 = publishOne(restored, 4 * TICK);
        assertThat(v4.getVersion()).as("the counter is restored, not restarted").isEqualTo(4);
        assertThat(v4.getControlSequence()).isEqualTo(1);
        assertThat(v4.getParentVersion()).as("still pinned after the restore").isEqualTo(1);
        assertThat(v4.getAlphaP().getSamples()).as("estimators rebuilt from the replay buffer").isEqualTo(600);

        restored.processElement2(new StreamRecord<>(control(ControlAction.UNPIN, 1L, 2)));
        ParameterSnapshot v5 = publishOne(restored, 5 * TICK);
        assertThat(v5.getControlSequence()).isEqualTo(2);
        assertThat(v5.getParentVersion()).as("the pinned version stays active until a snapshot follows the unpin")
            .isEqualTo(1);
        assertThat(v5.getStatus()).as("reasons %s", v5.getRejectReasons()).isEqualTo(SnapshotStatus.ACCEPTED);
        rows(restored, 10);
        ParameterSnapshot v6 = publishOne(restored, 6 * TICK);
        assertThat(v6.getParentVersion()).as("fitted snapshots active again").isEqualTo(5);

        restored.setProcessingTime(100 * TICK);
        assertThat(restored.extractOutputValues()).as("an idle scope publishes nothing").hasSize(3);
        restored.close();
    }

    /**
     * The params topic had version 7 active at submission (fitted α_d 2 µs/token): a scope without state starts from it,
     * and keeps it as history; a scope restored from state keeps its own active version.
     */
    @Test
    void aScopeWithoutStateStartsFromTheTopicsActiveSnapshotButRestoredStateWins() throws Exception {
        ParameterSnapshot onTopic = io.tierroute.jobs.EarlierSnapshots.accepted("default", 7, 6L, 2.0, 1 / 300.0);
        io.tierroute.jobs.PublishedParams.Builder topic = new io.tierroute.jobs.PublishedParams.Builder();
        for (long v = 1; v <= 8; v++) {
            topic.snapshot("default", v); // 8: a rejected candidate after it
        }
        topic.active("default", io.tierroute.schemas.Codecs.PARAMETER_SNAPSHOT.encode(onTopic));

        var fresh = harness(null, settings().build(), topic.build());
        fresh.setProcessingTime(0);
        rows(fresh, 10); // too few for the regression: α_d is carried
        ParameterSnapshot first = publishOne(fresh, TICK);
        assertThat(first.getVersion()).isEqualTo(9);
        assertThat(first.getParentVersion()).as("gated against the topic's active version").isEqualTo(7);
        assertThat(first.getAlphaD().getValue()).as("carried from it, not the default 50").isEqualTo(2.0);
        assertThat(first.getStatus()).as("reasons %s", first.getRejectReasons()).isEqualTo(SnapshotStatus.ACCEPTED);
        fresh.processElement2(new StreamRecord<>(control(ControlAction.PIN, 7L, 1)));
        ParameterSnapshot pinned = publishOne(fresh, 2 * TICK);
        assertThat(pinned.getParentVersion()).as("version 7 is kept: a pin of it has a parent").isEqualTo(7);
        fresh.close();

        var own = harness(null);
        own.setProcessingTime(0);
        rows(own, 400);
        assertThat(publishOne(own, TICK).getVersion()).isEqualTo(1);
        OperatorSubtaskState state = own.snapshot(1, TICK);
        own.close();
        var restored = harness(state, settings().build(), topic.build());
        restored.setProcessingTime(2 * TICK - 1);
        rows(restored, 10);
        ParameterSnapshot next = publishOne(restored, 2 * TICK);
        assertThat(next.getVersion()).as("after the newest on the topic").isEqualTo(9);
        assertThat(next.getParentVersion()).as("its own active version").isEqualTo(1);
        assertThat(next.getAlphaD().getValue()).as("its own fit").isNotEqualTo(2.0);
        restored.close();
    }

    /**
     * A params key and a tombstone naming version Long.MAX_VALUE (garbage, a made-up key): the next version, one more,
     * overflowed at every publish, a restart loop. The start-up read skips them, and the scope goes on from the others.
     */
    @Test
    void aKeyAtLongMaxValueOnTheTopicDoesNotStopPublication() throws Exception {
        io.tierroute.jobs.PublishedParams.Builder topic = new io.tierroute.jobs.PublishedParams.Builder();
        for (long v = 1; v <= 3; v++) {
            topic.snapshot("default", v);
        }
        topic.snapshot("default", Long.MAX_VALUE);
        topic.tombstone("default", Long.MAX_VALUE);
        topic.tombstone("other", Long.MAX_VALUE);
        io.tierroute.jobs.PublishedParams published = topic.build();
        assertThat(published.newest()).isEqualTo(Map.of("default", 3L));

        var h = harness(null, settings().build(), published);
        h.setProcessingTime(0);
        rows(h, 400);
        ParameterSnapshot next = publishOne(h, TICK);
        assertThat(next.getVersion()).isEqualTo(4);
        h.close();
    }

    @Test
    void aRestoreReplaysTheNewestSealedChunksAndTheTail() throws Exception {
        // sample-rows 400: chunks of 100 rows, four kept; 1,050 rows leave four sealed chunks and a tail of 50
        JobSettings s = settings().set("sample-rows", 400).set("regression-horizon-rows", 100_000).build();
        var h = harness(null, s);
        h.setProcessingTime(0);
        rows(h, 1_050);
        assertThat(publishOne(h, TICK).getAlphaP().getSamples()).isEqualTo(1_050);
        OperatorSubtaskState state = h.snapshot(1, TICK);
        h.close();

        var restored = harness(state, s);
        restored.setProcessingTime(2 * TICK - 1);
        rows(restored, 10);
        assertThat(publishOne(restored, 2 * TICK).getAlphaP().getSamples())
            .as("rebuilt from 4 chunks + the tail of 50, then 10 new rows").isEqualTo(460);
        restored.close();
    }

    @Test
    void withoutAParamsTopicToReadFromAPinOfAVersionTheHistoryNoLongerKeepsLeavesNothingToGateAgainst() throws Exception {
        var h = harness(null, settings().set("history-versions", 2).build());
        h.setProcessingTime(0);
        for (int v = 1; v <= 4; v++) {
            rows(h, v == 1 ? 400 : 20);
            assertThat(publishOne(h, v * TICK).getStatus()).isEqualTo(SnapshotStatus.ACCEPTED);
        }
        h.processElement2(new StreamRecord<>(control(ControlAction.PIN, 3L, 1)));
        assertThat(publishOne(h, 5 * TICK).getParentVersion()).as("version 3 is kept: the pinned parent").isEqualTo(3);
        h.processElement2(new StreamRecord<>(control(ControlAction.PIN, 1L, 2)));
        assertThat(publishOne(h, 6 * TICK).getParentVersion())
            .as("version 1 was trimmed (two kept): no active version to gate against").isNull();
        h.close();
    }

    @Test
    void aForestTrainedInTheBackgroundIsPolledUntilDoneAndEntersTheNextSnapshot() throws Exception {
        // 1,000 rows: the gate's minimum for a forest; 30 trees take long enough that the first polls find it running
        var h = harness(null, settings().set("forest-interval", Duration.ofSeconds(1)).set("min-forest-rows", 100)
            .set("forest-trees", 30).build());
        h.setProcessingTime(0);
        rows(h, 1_000);
        assertThat(publishOne(h, TICK).getQuantileModel()).as("no forest before the first forest tick").isNull();
        Published p = publishUntilAModel(h, 2 * TICK);
        long now = p.now();
        ParameterSnapshot withModel = p.snapshot();
        assertThat(withModel.getQuantileModel()).as("the polled model is in a snapshot within 100 polls; last: %s",
            withModel.getRejectReasons()).isNotNull();
        assertThat(withModel.getStatus()).as("reasons %s", withModel.getRejectReasons()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(withModel.getQuantileModelVersion()).as("the record carrying the model names itself")
            .isEqualTo(withModel.getVersion());

        // The model travels once: every later record names the carrier instead of repeating ~0.5 MB, also after a
        // restore (the carrier is in the active version's state).
        long referrer = 0;
        for (int i = 0; i < 3; i++) {
            rows(h, 5);
            now = (now / TICK + 1) * TICK;
            ParameterSnapshot next = publishOne(h, now);
            referrer = next.getVersion();
            assertThat(next.getQuantileModel()).as("version %d carries no model of its own", next.getVersion()).isNull();
            assertThat(next.getQuantileModelVersion()).as("version %d refers to the carrier", next.getVersion())
                .isEqualTo(withModel.getVersion());
        }
        OperatorSubtaskState state = h.snapshot(1, now);
        h.close();
        var restored = harness(state, settings().set("forest-interval", Duration.ofSeconds(1))
            .set("min-forest-rows", 100).set("forest-trees", 30).build());
        restored.setProcessingTime(now);
        rows(restored, 5);
        ParameterSnapshot afterRestore = publishOne(restored, (now / TICK + 1) * TICK);
        assertThat(afterRestore.getQuantileModel()).isNull();
        assertThat(afterRestore.getQuantileModelVersion()).isEqualTo(withModel.getVersion());
        restored.close();

        // Restored again, but the params topic read at start shows the carrier deleted (`snapshots trim` ran while
        // another run went on publishing): naming it would make every reader refuse the snapshot, so the model
        // travels in full again and later records name the new carrier.
        io.tierroute.jobs.PublishedParams.Builder topic = new io.tierroute.jobs.PublishedParams.Builder();
        for (long v = 1; v <= afterRestore.getVersion() + 20; v++) {
            topic.snapshot(afterRestore.getScope(), v);
        }
        topic.tombstone(afterRestore.getScope(), withModel.getVersion());
        var trimmed = harness(state, settings().set("forest-interval", Duration.ofSeconds(1))
            .set("min-forest-rows", 100).set("forest-trees", 30).build(), topic.build());
        trimmed.setProcessingTime(now);
        rows(trimmed, 5);
        now = (now / TICK + 1) * TICK;
        ParameterSnapshot recarried = publishOne(trimmed, now);
        assertThat(recarried.getVersion()).as("after the newest version on the topic").isEqualTo(afterRestore.getVersion() + 21);
        assertThat(recarried.getQuantileModel()).as("the carrier is gone: the model in full").isEqualTo(withModel.getQuantileModel());
        assertThat(recarried.getQuantileModelVersion()).isEqualTo(recarried.getVersion());
        rows(trimmed, 5);
        ParameterSnapshot next = publishOne(trimmed, now + TICK);
        assertThat(next.getQuantileModel()).isNull();
        assertThat(next.getQuantileModelVersion()).as("names the new carrier").isEqualTo(recarried.getVersion());
        trimmed.close();

        // The same, pinned to a version that names the deleted carrier: the record carrying the model again is not
        // active, and the records after it name it rather than carry ~0.5 MB each.
        var pinned = harness(state, settings().set("forest-interval", Duration.ofSeconds(1))
            .set("min-forest-rows", 100).set("forest-trees", 30).build(), topic.build());
        pinned.setProcessingTime(now);
        pinned.processElement2(new StreamRecord<>(control(ControlAction.PIN, referrer, 1)));
        rows(pinned, 5);
        now = (now / TICK + 1) * TICK;
        ParameterSnapshot again = publishOne(pinned, now);
        assertThat(again.getQuantileModel()).as("the pinned version's carrier is gone").isNotNull();
        for (int i = 1; i <= 2; i++) {
            rows(pinned, 5);
            ParameterSnapshot after = publishOne(pinned, now + i * TICK);
            assertThat(after.getParentVersion()).as("gated against the pinned version").isEqualTo(referrer);
            assertThat(after.getQuantileModel()).as("version %d", after.getVersion()).isNull();
            assertThat(after.getQuantileModelVersion()).isEqualTo(again.getVersion());
        }
        pinned.close();
    }

    private record Published(ParameterSnapshot snapshot, long now) {}

    /** From the forest tick at {@code tick}: publishes until a snapshot carries a model (the training's poll done). */
    private Published publishUntilAModel(
            KeyedTwoInputStreamOperatorTestHarness<String, ScopeInput, SnapshotControl, ParameterSnapshot> h, long tick)
            throws Exception {
        h.setProcessingTime(tick); // the forest tick: training starts on the background thread, a poll is armed
        long now = tick;
        ParameterSnapshot last = null;
        for (int attempt = 0; attempt < 100 && (last == null || last.getQuantileModel() == null); attempt++) {
            if (attempt > 0) {
                Thread.sleep(50); // the first poll comes at once: it finds the training running and must arm the next
            }
            now += ScopeFitFunction.FOREST_POLL_MS;
            h.setProcessingTime(now);
            rows(h, 1);
            now = (now / TICK + 1) * TICK;
            last = publishOne(h, now);
        }
        return new Published(last, now);
    }

    /** A forest trained while the scope is pinned stays pending: after the unpin the newest snapshot uses it. */
    @Test
    void aForestTrainedWhilePinnedIsUsedAfterTheUnpin() throws Exception {
        var h = harness(null, settings().set("forest-interval", Duration.ofSeconds(1)).set("min-forest-rows", 100)
            .set("forest-trees", 30).build());
        h.setProcessingTime(0);
        rows(h, 1_000);
        assertThat(publishOne(h, TICK).getVersion()).isEqualTo(1);
        h.processElement2(new StreamRecord<>(control(ControlAction.PIN, 1L, 1)));
        Published p = publishUntilAModel(h, 2 * TICK);
        ParameterSnapshot carrier = p.snapshot();
        assertThat(carrier.getQuantileModel()).as("reasons %s", carrier.getRejectReasons()).isNotNull();
        assertThat(carrier.getStatus()).isEqualTo(SnapshotStatus.ACCEPTED);
        long now = p.now();
        rows(h, 5);
        now = (now / TICK + 1) * TICK;
        ParameterSnapshot pinnedNext = publishOne(h, now);
        assertThat(pinnedNext.getParentVersion()).as("gated against the pinned version").isEqualTo(1L);
        assertThat(pinnedNext.getQuantileModelVersion()).as("still the new forest, by reference")
            .isEqualTo(carrier.getVersion());

        h.processElement2(new StreamRecord<>(control(ControlAction.UNPIN, null, 2)));
        rows(h, 5);
        now = (now / TICK + 1) * TICK;
        ParameterSnapshot unpinned = publishOne(h, now);
        assertThat(unpinned.getStatus()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(unpinned.getQuantileModelVersion()).as("the forest trained while pinned, not version 1's none")
            .isEqualTo(carrier.getVersion());
        rows(h, 5);
        now = (now / TICK + 1) * TICK;
        assertThat(publishOne(h, now).getQuantileModelVersion()).as("and after it became active")
            .isEqualTo(carrier.getVersion());
        h.close();
    }

    /**
     * A job restored from the state of one run with a larger --forest-max-bytes finds a pending forest over its budget:
     * dropped, not published (a record the producer or broker refuses failed every publish, restore after restore).
     */
    @Test
    void aPendingForestOverTheRestoredJobsBudgetIsDropped() throws Exception {
        // Publishing every 120 s, forest every 1 s: the training finishes and its model waits in state, unpublished.
        long publish = 120_000;
        JobSettings.Builder s = settings().set("publish-interval", Duration.ofMillis(publish))
            .set("forest-interval", Duration.ofSeconds(1)).set("min-forest-rows", 100).set("forest-trees", 30);
        var h = harness(null, s.build());
        h.setProcessingTime(0);
        rows(h, 1_000);
        long now = 1_000; // the forest tick
        h.setProcessingTime(now);
        // While the training runs a poll is armed beside the publish timer; the last poll finds it done and arms none.
        while (h.numProcessingTimeTimers() > 1 && now + ScopeFitFunction.FOREST_POLL_MS < publish) {
            Thread.sleep(50);
            now += ScopeFitFunction.FOREST_POLL_MS;
            h.setProcessingTime(now);
        }
        assertThat(h.numProcessingTimeTimers()).as("the training finished within %d polls", publish / 250).isEqualTo(1);
        assertThat(h.extractOutputValues()).as("nothing published yet").isEmpty();
        OperatorSubtaskState state = h.snapshot(1, now);
        h.close();

        // Restored under the same budget, the pending model goes out in the next snapshot (it is in the state) ...
        var same = harness(state, s.build());
        same.setProcessingTime(now);
        ParameterSnapshot carried = publishOne(same, publish);
        assertThat(carried.getQuantileModel()).as("the training finished before the state was taken").isNotNull();
        long bytes = io.tierroute.fitter.forest.QuantileForestTrainer.estimatedBytes(carried.getQuantileModel());
        same.close();

        // ... under a smaller one it is dropped, and the snapshot goes out without it.
        var smaller = harness(state, s.set("forest-max-bytes", bytes - 1).build());
        smaller.setProcessingTime(now);
        ParameterSnapshot without = publishOne(smaller, publish);
        assertThat(without.getStatus()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(without.getQuantileModel()).isNull();
        assertThat(without.getQuantileModelVersion()).isNull();
        smaller.close();
    }

    /**
     * A forest a record already carried (trained while pinned) stays in use after a restore under a smaller budget:
     * later records only name its carrier, so its size no longer matters.
     */
    @Test
    void aPendingForestAlreadyCarriedIsKeptUnderASmallerBudget() throws Exception {
        JobSettings.Builder s = settings().set("forest-interval", Duration.ofSeconds(1)).set("min-forest-rows", 100)
            .set("forest-trees", 30);
        var h = harness(null, s.build());
        h.setProcessingTime(0);
        rows(h, 1_000);
        assertThat(publishOne(h, TICK).getVersion()).isEqualTo(1);
        h.processElement2(new StreamRecord<>(control(ControlAction.PIN, 1L, 1)));
        Published p = publishUntilAModel(h, 2 * TICK); // pinned: carried by this record, and kept pending
        ParameterSnapshot carrier = p.snapshot();
        long bytes = io.tierroute.fitter.forest.QuantileForestTrainer.estimatedBytes(carrier.getQuantileModel());
        OperatorSubtaskState state = h.snapshot(1, p.now());
        h.close();

        var restored = harness(state, s.set("forest-interval", Duration.ofHours(1)).set("forest-max-bytes", bytes - 1)
            .build());
        restored.setProcessingTime(p.now());
        restored.processElement2(new StreamRecord<>(control(ControlAction.UNPIN, null, 2)));
        rows(restored, 5);
        ParameterSnapshot unpinned = publishOne(restored, (p.now() / TICK + 1) * TICK);
        assertThat(unpinned.getStatus()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(unpinned.getQuantileModelVersion()).isEqualTo(carrier.getVersion());
        restored.close();
    }

    /**
     * The price of decode work shifts 12× for good. The gate refuses the jump until the regression's evidence is
     * overwhelming; meanwhile state {@link ScopeFitFunction#REFUSED_JUMPS} keeps it as first seen (the gate's
     * {@code JumpWatch}: a jump persisting over as many new rows as overwhelming evidence asks for is accepted, see the
     * fitter's ValidationGateTest), and forgets it once accepted.
     */
    @Test
    void aRefusedJumpIsKeptAsFirstSeenUntilItIsAccepted() throws Exception {
        var h = harness(null);
        h.setProcessingTime(0);
        rows(h, 2_000);
        long now = TICK;
        ParameterSnapshot first = publishOne(h, now);
        assertThat(first.getStatus()).as("reasons %s", first.getRejectReasons()).isEqualTo(SnapshotStatus.ACCEPTED);

        ParameterSnapshot firstRefusal = null;
        ParameterSnapshot last = first;
        for (int round = 0; round < 120 && last.getStatus() != SnapshotStatus.ACCEPTED || round == 0; round++) {
            rows(h, round == 0 ? 4_000 : 500, 600); // the first batch at once: a jump, not a drift
            now += TICK;
            last = publishOne(h, now);
            if (last.getStatus() == SnapshotStatus.REJECTED) {
                assertThat(last.getRejectReasons()).anySatisfy(r -> assertThat(r).startsWith("alphaD jumps"));
                firstRefusal = firstRefusal == null ? last : firstRefusal;
                RefusedJump kept = refusedJumps(h).get("alphaD");
                assertThat(kept).as("version %d: kept", last.getVersion()).isNotNull();
                assertThat(kept.samples).as("as first seen").isEqualTo(firstRefusal.getAlphaD().getSamples());
                assertThat(kept.from).isEqualTo(first.getAlphaD().getValue());
                assertThat(kept.up).isTrue();
                assertThat(kept.kind).as("the regression's fit was refused").isEqualTo("R2");
            }
        }
        assertThat(firstRefusal).as("the shift is first refused as a jump").isNotNull();
        assertThat(last.getStatus()).as("accepted in the end; last reasons %s", last.getRejectReasons())
            .isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(last.getAlphaD().getValue()).isGreaterThan(4 * 50);
        assertThat(refusedJumps(h)).as("an accepted jump is forgotten").isEmpty();
        h.close();
    }

    /** The scope's {@link ScopeFitFunction#REFUSED_JUMPS} as the operator keeps it. */
    private static Map<String, RefusedJump> refusedJumps(
            KeyedTwoInputStreamOperatorTestHarness<String, ScopeInput, SnapshotControl, ParameterSnapshot> h)
            throws Exception {
        var op = (org.apache.flink.streaming.api.operators.AbstractStreamOperator<?>) h.getOperator();
        op.setCurrentKey("default");
        org.apache.flink.api.common.state.MapState<String, RefusedJump> state = op.getKeyedStateBackend()
            .getPartitionedState(org.apache.flink.runtime.state.VoidNamespace.INSTANCE,
                org.apache.flink.runtime.state.VoidNamespaceSerializer.INSTANCE, ScopeFitFunction.REFUSED_JUMPS);
        Map<String, RefusedJump> out = new java.util.HashMap<>();
        for (Map.Entry<String, RefusedJump> e : state.entries()) {
            out.put(e.getKey(), e.getValue());
        }
        return out;
    }

    /**
     * Chat-like rows: short prompts, TTFT mostly the engine's fixed 16.5 ms step plus 15 µs a prompt token. The fixed
     * step is paid on every worker, so the regression's intercept takes it and α_p is the marginal price; fitted without
     * the intercept, α_p absorbed the step and explained less than the mean did (R² 0: every snapshot rejected).
     */
    @Test
    void aFixedStepCostGoesToTheInterceptAndTheSnapshotIsAccepted() throws Exception {
        var h = harness(null);
        h.setProcessingTime(0);
        for (int i = 0; i < 600; i++) {
            JoinedRow r = new JoinedRow();
            r.scope = "default";
            r.worker = "w" + (i % 4);
            r.eventTimeMs = eventTime += 10;
            r.regressors.pEffTokens = 50 + rnd.nextInt(550);
            r.realisedUs = (16_500 + 15 * r.regressors.pEffTokens) * (1 + 0.01 * rnd.nextGaussian());
            r.request.isl = (int) r.regressors.pEffTokens;
            r.request.model = "m";
            r.request.maxTokens = 512;
            r.outputTokens = 100;
            h.processElement1(new StreamRecord<>(ScopeInput.of(r)));
        }
        ParameterSnapshot s = publishOne(h, TICK);
        assertThat(s.getStatus()).as("reasons %s", s.getRejectReasons()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(s.getAlphaP().getQuality()).as("R²").isGreaterThan(0.9);
        assertThat(s.getAlphaP().getValue()).as("the marginal price, not the step spread over the tokens")
            .isCloseTo(15.0, org.assertj.core.data.Offset.offset(1.0));
        h.close();
    }

    /**
     * The upgrade from the release before snapshots named their forest (66124ac: every record carried its forest
     * inline, the state had no pending carrier nor refused jumps). Its operator state, written by that release's
     * operator on this harness ({@code scope-fit-state-66124ac.patch} beside the state file: 1,000 rows, v1, a forest
     * training first carried inline by v3 and again by v4 and v5, PIN 1 at sequence 1, v6), restores here: the
     * versions, the pin and the control sequence continue, the history's records of the old schema are gated against,
     * and a pin to an old record that carried the forest inline publishes records naming the one that first carried it.
     */
    @Test
    void theStateOfThePreviousReleaseRestoresAndContinues() throws Exception {
        OperatorSubtaskState old = org.apache.flink.streaming.util.OperatorSnapshotUtil.readStateHandle(
            java.nio.file.Path.of(getClass().getResource("scope-fit-state-66124ac.bin").toURI()).toString());
        var h = harness(old);
        long now = 3_500; // the old harness's clock when it wrote the state
        h.setProcessingTime(now);
        rows(h, 5);
        ParameterSnapshot v7 = publishOne(h, now += TICK);
        assertThat(v7.getVersion()).as("the counter continues").isEqualTo(7);
        assertThat(v7.getControlSequence()).isEqualTo(1);
        assertThat(v7.getParentVersion()).as("still pinned to 1, gated against its old-schema record").isEqualTo(1);
        assertThat(v7.getQuantileModel()).as("version 1, pinned, had no forest").isNull();
        assertThat(v7.getQuantileModelVersion()).isNull();

        h.processElement2(new StreamRecord<>(control(ControlAction.PIN, 4L, 2)));
        rows(h, 5);
        ParameterSnapshot v8 = publishOne(h, now += TICK);
        assertThat(v8.getParentVersion()).as("a pin to an old record that carried the forest inline").isEqualTo(4);
        assertThat(v8.getStatus()).as("reasons %s", v8.getRejectReasons()).isEqualTo(SnapshotStatus.ACCEPTED);
        assertThat(v8.getQuantileModel()).as("the forest is not carried again").isNull();
        assertThat(v8.getQuantileModelVersion()).as("named by the old record that first carried it").isEqualTo(3);

        h.processElement2(new StreamRecord<>(control(ControlAction.UNPIN, null, 3)));
        rows(h, 5);
        ParameterSnapshot v9 = publishOne(h, now += TICK);
        assertThat(v9.getStatus()).as("reasons %s", v9.getRejectReasons()).isEqualTo(SnapshotStatus.ACCEPTED);
        rows(h, 5);
        ParameterSnapshot v10 = publishOne(h, now += TICK);
        assertThat(v10.getParentVersion()).as("fitted snapshots active again").isEqualTo(9);
        assertThat(v10.getQuantileModelVersion()).isEqualTo(3);
        assertThat(v10.getAlphaP().getSamples()).as("estimators rebuilt from the old replay buffer and the new rows")
            .isGreaterThan(1_000);
        h.close();
    }

    @Test
    void eventClockAnInputBehindTheWatermarkIsAppliedAtTheNextTick() throws Exception {
        var h = harness(null, settings().set("cadence-clock", "event").build());
        long start = eventTime; // a multiple of TICK: rows at start + 10, + 20, ...
        rows(h, 300);
        h.processBothWatermarks(new Watermark(start + 3000));
        List<ParameterSnapshot> onTime = h.extractOutputValues();
        assertThat(onTime).as("one snapshot per tick that had input").hasSize(6);
        assertThat(onTime.get(5).getCreatedAtMs()).as("stamped with its tick").isEqualTo(start + 3000);
        assertThat(onTime.get(5).getAlphaP().getSamples()).isEqualTo(300);

        assertThat(lateInputs(h)).isZero();
        eventTime = start + 2000 - 10;
        rows(h, 1); // event time start + 2000: its tick has fired
        assertThat(lateInputs(h)).as("one late row counts once (not for its publish and its forest tick)").isEqualTo(1);
        h.processBothWatermarks(new Watermark(start + 3400));
        assertThat(h.extractOutputValues()).as("nothing before the next tick").hasSize(6);
        h.processBothWatermarks(new Watermark(start + 3500));
        List<ParameterSnapshot> out = h.extractOutputValues();
        assertThat(out).hasSize(7);
        assertThat(out.get(6).getCreatedAtMs()).isEqualTo(start + 3500);
        assertThat(out.get(6).getAlphaP().getSamples()).as("the late row, applied at the first tick after the watermark")
            .isEqualTo(301);
        h.processElement1(new StreamRecord<>(ScopeInput.of(FitHarness.telemetry("default", "w0", start + 3000))));
        assertThat(lateInputs(h)).as("a late telemetry sample").isEqualTo(2);
        h.close();
    }

    private static long lateInputs(
            KeyedTwoInputStreamOperatorTestHarness<String, ScopeInput, SnapshotControl, ParameterSnapshot> h) {
        return ((ScopeFitFunction) ((KeyedCoProcessOperator<?, ?, ?, ?>) h.getOperator()).getUserFunction())
            .lateInputCount();
    }

    @Test
    void aWorkersRhoLeavesTheSnapshotsTenMinutesOfEventTimeAfterItsLastTelemetry() throws Exception {
        var h = harness(null, settings().set("cadence-clock", "event").set("publish-interval", Duration.ofSeconds(1))
            .build());
        long start = 1_700_000_000_000L;
        for (int sec = 1; sec <= 800; sec++) {
            for (String w : sec <= 60 ? List.of("w0", "w1") : List.of("w0")) { // w1 leaves the fleet after a minute
                h.processElement1(new StreamRecord<>(ScopeInput.of(FitHarness.telemetry("default", w, start + sec * 1000L))));
            }
            h.processBothWatermarks(new Watermark(start + sec * 1000L));
        }
        List<ParameterSnapshot> out = h.extractOutputValues();
        assertThat(rhoWorkers(snapshotAt(out, start + 660_000))).as("ten minutes after w1's last telemetry")
            .containsExactlyInAnyOrder("w0", "w1");
        assertThat(rhoWorkers(snapshotAt(out, start + 661_000))).containsExactly("w0");
        assertThat(rhoWorkers(out.get(out.size() - 1))).containsExactly("w0");
        h.close();
    }

    @Test
    void inProcessingModeTheWatermarkIsTheClockThatRetiresADepartedWorkersRho() throws Exception {
        var h = harness(null);
        long start = 1_700_000_000_000L;
        long now = 0;
        for (int sec = 1; sec <= 800; sec++) {
            for (String w : sec <= 60 ? List.of("w0", "w1") : List.of("w0")) {
                h.processElement1(new StreamRecord<>(ScopeInput.of(FitHarness.telemetry("default", w, start + sec * 1000L))));
            }
            h.processBothWatermarks(new Watermark(start + sec * 1000L));
            h.setProcessingTime(now += TICK);
        }
        List<ParameterSnapshot> out = h.extractOutputValues();
        assertThat(out).hasSize(800); // one per processing tick, the k-th at watermark k + 1 s
        assertThat(rhoWorkers(out.get(659))).as("watermark 660 s: w1 reported at 60 s").containsExactlyInAnyOrder("w0", "w1");
        assertThat(rhoWorkers(out.get(660))).as("watermark 661 s").containsExactly("w0");
        assertThat(rhoWorkers(out.get(799))).containsExactly("w0");
        h.close();
    }

    private static ParameterSnapshot snapshotAt(List<ParameterSnapshot> out, long createdAtMs) {
        return out.stream().filter(p -> p.getCreatedAtMs() == createdAtMs).findFirst().orElseThrow();
    }

    private static List<String> rhoWorkers(ParameterSnapshot p) {
        return p.getRho().stream().map(r -> r.getWorker().toString()).toList();
    }
}
