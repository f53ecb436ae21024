package io.tierroute.schemas.snapshot;

import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.snapshot.SnapshotRetention.Plan;
import io.tierroute.schemas.snapshot.SnapshotRetention.Version;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.OptionalLong;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.LongStream;

import static io.tierroute.schemas.avro.SnapshotStatus.ACCEPTED;
import static io.tierroute.schemas.avro.SnapshotStatus.REJECTED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SnapshotRetentionTest {

    private final NavigableMap<Long, Version> versions = new TreeMap<>();
    private final ActivationRule rule = new ActivationRule();

    private void publish(long version, SnapshotStatus status, Long carrier) {
        versions.put(version, new Version(version, status, carrier));
        rule.onSnapshot("default", version, status, 0);
    }

    private void publishAccepted(long from, long to) {
        LongStream.rangeClosed(from, to).forEach(v -> publish(v, ACCEPTED, null));
    }

    @Test
    void anUnpinnedScopeKeepsItsNewestVersionsAndDeletesTheRest() {
        publishAccepted(1, 3000);

        Plan plan = SnapshotRetention.plan("default", versions, rule, 1000);

        assertThat(plan.newest()).isEqualTo(3000);
        assertThat(plan.deleted()).containsExactlyElementsOf(LongStream.rangeClosed(1, 2000).boxed().toList());
        assertThat(plan.held()).isEmpty(); // the active version and its rollback target are in the window
    }

    @Test
    void aScopeWithNoMoreThanKeepVersionsLosesNothing() {
        publishAccepted(1, 1000);

        assertThat(SnapshotRetention.plan("default", versions, rule, 1000).deleted()).isEmpty();
        assertThat(SnapshotRetention.plan("default", new TreeMap<>(), rule, 1000).deleted()).isEmpty();
    }

    @Test
    void aPinnedOldVersionAndItsRollbackTargetStay() {
        publishAccepted(1, 3000);
        publish(4, REJECTED, null); // the rollback target skips a rejected version
        rule.onControl(control(ControlAction.PIN, 5L, 1));

        Plan plan = SnapshotRetention.plan("default", versions, rule, 1000);

        assertThat(plan.held()).containsOnlyKeys(5L, 3L);
        assertThat(plan.held().get(5L)).isEqualTo("active, pinned");
        assertThat(plan.held().get(3L)).isEqualTo("rollback target");
        assertThat(plan.deleted()).doesNotContain(3L, 5L).contains(1L, 2L, 4L, 6L, 2000L).hasSize(1998);
    }

    @Test
    void theVersionAnUnpinNamesStaysAlsoOnceItsSuccessorIsOut() {
        publishAccepted(1, 10);
        rule.onControl(control(ControlAction.PIN, 5L, 1));
        rule.onControl(control(ControlAction.UNPIN, 5L, 2));
        assertThat(rule.activeVersion("default")).isEqualTo(OptionalLong.of(5)); // no successor yet
        for (long v = 11; v <= 1100; v++) {
            versions.put(v, new Version(v, ACCEPTED, null));
            rule.onSnapshot("default", v, ACCEPTED, 1); // fitted while pinned
        }
        Plan pinned = SnapshotRetention.plan("default", versions, rule, 1000);
        assertThat(pinned.held()).containsOnlyKeys(5L, 4L, 10L);
        assertThat(pinned.held().get(10L)).as("the pin of 5 rolled back from 10").isEqualTo("rolled back from");

        for (long v = 1101; v <= 2100; v++) {
            versions.put(v, new Version(v, ACCEPTED, null));
            rule.onSnapshot("default", v, ACCEPTED, 2); // the job saw the unpin
        }
        Plan plan = SnapshotRetention.plan("default", versions, rule, 1000);

        assertThat(plan.held()).containsOnlyKeys(5L, 10L);
        assertThat(plan.held().get(5L)).isEqualTo("named by the last unpin");
    }

    @Test
    void theForestOfAKeptVersionStaysAndOneOnlyDeletedVersionsNameGoes() {
        publish(1, ACCEPTED, 1L); // carries forest A
        for (long v = 2; v <= 20; v++) {
            publish(v, ACCEPTED, 1L);
        }
        publish(21, ACCEPTED, 21L); // carries forest B, named by nothing kept
        for (long v = 22; v <= 30; v++) {
            publish(v, ACCEPTED, 21L);
        }
        publish(31, ACCEPTED, 31L); // carries forest C, named by the whole window
        for (long v = 32; v <= 2000; v++) {
            publish(v, ACCEPTED, 31L);
        }
        rule.onControl(control(ControlAction.PIN, 10L, 1)); // names forest A

        Plan plan = SnapshotRetention.plan("default", versions, rule, 1000);

        assertThat(plan.held()).containsOnlyKeys(1L, 9L, 10L, 31L);
        assertThat(plan.held().get(1L)).isEqualTo("carries the forest of 9");
        assertThat(plan.held().get(31L)).isEqualTo("carries the forest of 1001");
        assertThat(plan.deleted()).contains(21L, 22L, 30L, 32L, 1000L).doesNotContain(1L, 9L, 10L, 31L, 1001L);
    }

    /** The gate refused every fit for longer than the window: the active version is below it, and stays. */
    @Test
    void anActiveVersionBelowTheWindowStaysWithItsRollbackTarget() {
        publishAccepted(1, 1500);
        for (long v = 1501; v <= 3000; v++) {
            publish(v, REJECTED, null);
        }

        Plan plan = SnapshotRetention.plan("default", versions, rule, 1000);

        assertThat(rule.activeVersion("default")).hasValue(1500);
        assertThat(plan.held()).containsOnlyKeys(1500L, 1499L);
        assertThat(plan.held().get(1500L)).isEqualTo("active");
        assertThat(plan.deleted()).doesNotContain(1499L, 1500L).contains(1498L, 1501L, 2000L).hasSize(1998);
    }

    /**
     * The rollback target is the version active before the current one (9, rolled back to from 10 and unpinned, then
     * replaced by 2001 after a long run of rejected fits), not the newest accepted version below it (10, the one rolled
     * back from): the target stays, and so does 10, so that the target cannot move when older versions go.
     */
    @Test
    void theRollbackTargetIsTheVersionActiveBeforeAndTheVersionRolledBackFromStays() {
        publishAccepted(1, 10);
        rule.onControl(control(ControlAction.PIN, 9L, 1)); // rollback from 10
        rule.onControl(control(ControlAction.UNPIN, 9L, 2));
        for (long v = 11; v <= 2000; v++) {
            versions.put(v, new Version(v, REJECTED, null));
            rule.onSnapshot("default", v, REJECTED, 2);
        }
        versions.put(2001L, new Version(2001, ACCEPTED, null));
        rule.onSnapshot("default", 2001, ACCEPTED, 2);
        assertThat(rule.activeVersion("default")).hasValue(2001);

        Plan plan = SnapshotRetention.plan("default", versions, rule, 1000);

        assertThat(plan.held()).containsOnlyKeys(9L, 10L);
        assertThat(plan.held().get(9L)).isEqualTo("named by the last unpin, rollback target");
        assertThat(plan.held().get(10L)).isEqualTo("rolled back from");
    }

    @Test
    void keepingFewerVersionsThanDesignAsksIsRefused() {
        assertThatThrownBy(() -> SnapshotRetention.plan("default", versions, rule, 999))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1000");
    }

    @Test
    void rangesAreShortAndCapped() {
        assertThat(SnapshotRetention.ranges(List.of(1L, 2L, 3L, 5L, 7L, 8L), 10)).isEqualTo("1–3, 5, 7–8");
        assertThat(SnapshotRetention.ranges(List.of(1L, 2L, 3L, 5L, 7L, 8L), 2)).isEqualTo("1–3, 5, …");
        assertThat(SnapshotRetention.ranges(List.of(), 2)).isEmpty();
    }

    /**
     * Random histories (statuses, forests, pins, unpins; the job publishing with the control sequence it had seen):
     * deleting the plan's versions changes no reader's answer — the active version, the rollback target, the forest
     * every remaining version names — and deletes nothing in the window.
     */
    @Test
    void deletingThePlanChangesNoReadersAnswer() {
        Random random = new Random(7);
        for (int history = 0; history < 200; history++) {
            NavigableMap<Long, Version> vs = new TreeMap<>();
            NavigableMap<Long, Long> seenSequence = new TreeMap<>();
            ActivationRule full = new ActivationRule();
            List<SnapshotControl> controls = new ArrayList<>();
            int n = 1100 + random.nextInt(1500);
            long carrier = 0;
            long sequence = 0;
            for (long v = 1; v <= n; v++) {
                SnapshotStatus status = random.nextInt(5) == 0 ? REJECTED : ACCEPTED;
                if (random.nextInt(200) == 0) {
                    carrier = v; // a new forest, carried by this version
                }
                vs.put(v, new Version(v, status, carrier == 0 ? null : carrier));
                seenSequence.put(v, sequence);
                full.onSnapshot("default", v, status, sequence);
                if (random.nextInt(100) == 0) {
                    long target = 1 + random.nextInt((int) v);
                    SnapshotControl c = random.nextBoolean() && vs.get(target).status() == ACCEPTED
                            ? control(ControlAction.PIN, target, sequence + 1)
                            : full.isPinned("default")
                            ? control(ControlAction.UNPIN, full.control("default").get().getVersion(), sequence + 1)
                            : null;
                    if (c != null) {
                        sequence++;
                        full.onControl(c);
                        controls.add(c);
                    }
                }
            }
            Plan plan = SnapshotRetention.plan("default", vs, full, 1000);

            NavigableMap<Long, Version> left = new TreeMap<>(vs);
            plan.deleted().forEach(left::remove);
            ActivationRule trimmed = new ActivationRule(); // a reader that starts after compaction
            left.values().forEach(v -> trimmed.onSnapshot("default", v.version(), v.status(), seenSequence.get(v.version())));
            controls.forEach(trimmed::onControl);

            OptionalLong active = full.activeVersion("default");
            assertThat(trimmed.activeVersion("default")).as("history %d", history).isEqualTo(active);
            assertThat(trimmed.rollbackTarget("default")).as("history %d", history)
                    .isEqualTo(full.rollbackTarget("default"));
            for (Version v : left.values()) {
                if (v.forestCarrier() != null) {
                    assertThat(left).as("history %d, forest of %d", history, v.version())
                            .containsKey(v.forestCarrier());
                }
            }
            assertThat(plan.deleted()).allMatch(v -> v <= n - 1000);
            assertThat(plan.deleted()).as("history %d deletes something", history).isNotEmpty();
        }
    }

    private static SnapshotControl control(ControlAction action, Long version, long sequence) {
        return SnapshotControl.newBuilder().setScope("default").setAction(action).setVersion(version)
                .setReason("test").setActor("tester").setTimestampMs(0).setSequence(sequence).build();
    }
}
