package io.tierroute.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.DeadLetter;
import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.snapshot.ActivationRule;
import io.tierroute.schemas.Codecs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fitting job on a real Flink MiniCluster (restart strategy none) against a real embedded KRaft
 * broker, one fresh broker per test. Snapshots are read back from {@code tierroute.params} with
 * read_committed, and the active version is computed with {@link ActivationRule} over the topics.
 */
class FittingJobTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FittingJobFixture.miniCluster();

    @RegisterExtension
    final FittingJobFixture fixture = new FittingJobFixture();
    @TempDir
    Path tmp;

    private JobSettings settings(String tag) {
        return fixture.settings(tmp, tag);
    }

    private static SnapshotControl control(String scope, ControlAction action, Long version, long sequence) {
        return SnapshotControl.newBuilder().setScope(scope).setAction(action).setVersion(version)
            .setReason("test").setActor("FittingJobTest").setTimestampMs(System.currentTimeMillis())
            .setSequence(sequence).build();
    }

    private static long startMs() {
        return System.currentTimeMillis() - Duration.ofMinutes(40).toMillis();
    }

    /** The versions of a scope in topic order are exactly 1..n: no gap, no duplicate. */
    private static void assertGapFree(List<ParameterSnapshot> all, String scope) {
        List<Long> versions = all.stream().filter(s -> s.getScope().toString().equals(scope))
            .map(ParameterSnapshot::getVersion).toList();
        assertThat(versions).as("versions of %s in publication order", scope).isNotEmpty();
        for (int i = 0; i < versions.size(); i++) {
            assertThat(versions.get(i)).as("version at position %d of %s", i, versions).isEqualTo(i + 1L);
        }
    }

    /**
     * Every coefficient within 5 % and λ within 10 % of the truth. The steps return to their previous worker mostly when
     * it still holds their context ({@link Workload#withRoutedReturns}): λ is fitted on every step with a previous one
     * (three in four requests), from what the decision says that worker held; the returns alone (a third) would put
     * the context's survival too high and λ too low.
     */
    @Test
    void fitsKnownParametersEndToEnd() throws Exception {
        TestKafka kafka = fixture.kafka();
        Workload w = new Workload(42, "default", startMs(), 0.05).withRoutedReturns();
        kafka.send(w.telemetry(60));
        kafka.send(w.requests(20_000));
        fixture.start(settings("e2e"), null);

        long n = w.requests();
        ParameterSnapshot s = kafka.awaitSnapshot(p -> p.getStatus() == SnapshotStatus.ACCEPTED
            && p.getAlphaP().getSamples() == n, Duration.ofSeconds(90), "with all " + n + " rows fitted");
        FittedValue[] alphas = {s.getAlphaP(), s.getAlphaP2(), s.getAlphaD(), s.getAlphaD2(), s.getAlphaT(),
            s.getAlphaHo(), s.getAlphaWf(), s.getAlphaWf2()};
        StringBuilder report = new StringBuilder("version " + s.getVersion() + ":");
        for (int j = 0; j < alphas.length; j++) {
            report.append(String.format(" %s=%.6g (truth %.6g, %+.2f%%)", Workload.NAMES[j], alphas[j].getValue(),
                Workload.TRUTH[j], 100 * (alphas[j].getValue() / Workload.TRUTH[j] - 1)));
        }
        report.append(String.format(" lambda=%.6g (truth %.6g, %+.2f%%, %d obs) qSlack=%.0f", s.getLambda().getValue(),
            Workload.LAMBDA, 100 * (s.getLambda().getValue() / Workload.LAMBDA - 1), s.getLambda().getSamples(),
            s.getQSlack().getValue()));
        System.out.println("[FittingJobTest] " + report);
        for (int j = 0; j < alphas.length; j++) {
            assertThat(alphas[j].getSamples()).as(Workload.NAMES[j] + " fitted, not held").isEqualTo(n);
            assertThat(alphas[j].getValue()).as(Workload.NAMES[j] + " " + report)
                .isCloseTo(Workload.TRUTH[j], within(0.05 * Workload.TRUTH[j]));
        }
        assertThat(s.getLambda().getSamples()).as("lambda fitted on the steps that went elsewhere too")
            .isGreaterThan(n * 6 / 10);
        assertThat(s.getLambda().getValue()).as("lambda " + report)
            .isCloseTo(Workload.LAMBDA, within(0.10 * Workload.LAMBDA));
        assertThat(s.getRho()).as("rho per worker").hasSize(Workload.WORKERS);
        assertGapFree(kafka.snapshots(), "default");
    }

    /** Sends {@code batches} batches of 1,500 requests, each awaited until a snapshot accepted with all its rows. */
    private static List<Long> acceptedBatches(TestKafka kafka, Workload w, int batches) throws InterruptedException {
        List<Long> accepted = new ArrayList<>();
        for (int batch = 0; batch < batches; batch++) {
            kafka.send(w.requests(1500));
            long rows = w.requests();
            accepted.add(kafka.awaitSnapshot(p -> p.getStatus() == SnapshotStatus.ACCEPTED
                && p.getAlphaP().getSamples() == rows, Duration.ofSeconds(60), "accepted with " + rows + " rows")
                .getVersion());
        }
        return accepted;
    }

    @Test
    void pinHoldsAcrossRestartUntilUnpin() throws Exception {
        TestKafka kafka = fixture.kafka();
        String scope = "pool-a";
        Workload w = new Workload(7, scope, startMs(), 0.05);
        JobSettings s = settings("pin");
        kafka.send(w.telemetry(40));
        JobClient job = fixture.start(s, null);
        List<Long> accepted = acceptedBatches(kafka, w, 2);
        long pinned = accepted.get(0);
        long before = kafka.snapshots().size();
        kafka.control(control(scope, ControlAction.PIN, pinned, 1));

        kafka.send(w.requests(1500));
        long rows1 = w.requests();
        ParameterSnapshot whilePinned = kafka.awaitSnapshot(p -> p.getControlSequence() == 1
            && p.getAlphaP().getSamples() == rows1, Duration.ofSeconds(60), "stamped with the pin");
        assertThat(whilePinned.getParentVersion()).as("gated against the pinned version").isEqualTo(pinned);
        assertThat(kafka.snapshots().size()).as("snapshots still published while pinned").isGreaterThan((int) before);
        assertThat(kafka.activeVersion(scope)).as("pinned version active").isEqualTo(OptionalLong.of(pinned));

        String savepoint = job.stopWithSavepoint(false, tmp.resolve("savepoints").toUri().toString(),
            SavepointFormatType.CANONICAL).get();
        fixture.start(s, savepoint);
        kafka.send(w.requests(1500));
        long rows2 = w.requests();
        ParameterSnapshot afterRestart = kafka.awaitSnapshot(p -> p.getControlSequence() == 1
            && p.getAlphaP().getSamples() >= rows2 - 1500 + 1 && p.getVersion() > whilePinned.getVersion(),
            Duration.ofSeconds(60), "published after the restart, still stamped with the pin");
        assertThat(afterRestart.getParentVersion()).isEqualTo(pinned);
        assertThat(kafka.activeVersion(scope)).as("pin survives the job restart").isEqualTo(OptionalLong.of(pinned));

        kafka.control(control(scope, ControlAction.UNPIN, pinned, 2));
        ParameterSnapshot resumed = kafka.awaitSnapshot(p -> p.getControlSequence() == 2
            && p.getStatus() == SnapshotStatus.ACCEPTED, Duration.ofSeconds(60), "accepted after the unpin");
        assertThat(kafka.activeVersion(scope)).as("unpin resumes fitted snapshots")
            .isEqualTo(OptionalLong.of(resumed.getVersion()));
        assertGapFree(kafka.snapshots(), scope);
    }

    /**
     * A rollback further back than the job's history (--history-versions 1 keeps only the newest accepted version): the
     * job reads the pinned version back from the params topic and gates its candidates against it, as it does against
     * a version it keeps, instead of against nothing.
     */
    @Test
    void aPinOfAVersionOlderThanTheHistoryIsReadBackFromTheTopic() throws Exception {
        TestKafka kafka = fixture.kafka();
        String scope = "pool-old";
        Workload w = new Workload(13, scope, startMs(), 0.05);
        JobSettings s = settings("pin-old").toBuilder().set("history-versions", 1).build();
        kafka.send(w.telemetry(40));
        fixture.start(s, null);
        List<Long> accepted = acceptedBatches(kafka, w, 3);
        long pinned = accepted.get(0);
        kafka.control(control(scope, ControlAction.PIN, pinned, 1));
        kafka.send(w.requests(1500));
        // The read runs off the task thread: a tick before it is done has no parent (as before it existed).
        ParameterSnapshot whilePinned = kafka.awaitSnapshot(p -> p.getControlSequence() == 1
            && p.getParentVersion() != null, Duration.ofSeconds(60), "stamped with the pin, with a parent");
        assertThat(whilePinned.getParentVersion()).as("gated against the pinned version, read back from the topic")
            .isEqualTo(pinned);
        assertThat(kafka.snapshots()).filteredOn(p -> p.getScope().toString().equals(scope)
                && p.getControlSequence() == 1 && p.getParentVersion() != null)
            .as("every candidate with a parent while pinned").allMatch(p -> p.getParentVersion() == pinned);
        assertThat(kafka.activeVersion(scope)).as("the pinned version is active").isEqualTo(OptionalLong.of(pinned));
    }

    @Test
    void badRecordsBecomeDeadLettersAndNoRejectedSnapshotIsActive() throws Exception {
        TestKafka kafka = fixture.kafka();
        String scope = "pool-b";
        // The mismatched pair below is stamped at the workload's start, not at the wall time its line runs, so the
        // join's event time stays within the workload's; the dead letters' Kafka timestamps (the wall clock, 40
        // minutes later) do not move it (AcceptedRecordWatermarks).
        long t0 = startMs();
        Workload w = new Workload(11, scope, t0, 0.05);
        JobSettings s = settings("bad").toBuilder().set("min-fit-samples", 50).build();
        JobClient job = fixture.start(s, null);
        kafka.send(w.telemetry(40));
        kafka.send(w.requests(120)); // 50..199 rows: fitted, but under the gate's 200 samples
        kafka.awaitSnapshot(p -> p.getStatus() == SnapshotStatus.REJECTED, Duration.ofSeconds(60), "rejected");

        byte[] unknownFingerprint = Codecs.COMPLETION_LOG.encode(w.completion("x1", "w1", t0, 5000, 100, 0));
        unknownFingerprint[5] ^= 0x5A;
        var d = w.decision("nan-1", "w1", t0, 100, 0, Double.NaN, 0, 0, 0, 0, 0, null, 0, 100);
        var negative = w.completion("neg-1", "w1", t0, 5000, 100, 0);
        negative.setQueueWaitUs(-5);
        var mismatchDecision = w.decision("mm-1", "w1", t0, 100, 0, 5000, 0, 0, 0, 0, 0, null, 0, 100);
        var mismatchCompletion = w.completion("mm-1", "w7", t0, 5000, 100, 0);
        kafka.send(List.of(
            new ProducerRecord<>(Topics.TELEMETRY, "w1".getBytes(), "not avro at all".getBytes()),
            new ProducerRecord<>(Topics.COMPLETIONS, "x1".getBytes(), unknownFingerprint),
            new ProducerRecord<>(Topics.DECISIONS, "nan-1".getBytes(), Codecs.ROUTING_DECISION.encode(d)),
            new ProducerRecord<>(Topics.COMPLETIONS, "neg-1".getBytes(), Codecs.COMPLETION_LOG.encode(negative)),
            new ProducerRecord<>(Topics.DECISIONS, "mm-1".getBytes(), Codecs.ROUTING_DECISION.encode(mismatchDecision)),
            new ProducerRecord<>(Topics.COMPLETIONS, "mm-1".getBytes(), Codecs.COMPLETION_LOG.encode(mismatchCompletion))));
        kafka.control(control(scope, ControlAction.PIN, null, 1)); // a PIN without a version
        kafka.send(w.requests(1500));
        long rows = w.requests();
        kafka.awaitSnapshot(p -> p.getStatus() == SnapshotStatus.ACCEPTED && p.getAlphaP().getSamples() == rows,
            Duration.ofSeconds(60), "accepted after the bad records");
        assertThat(job.getJobStatus().get()).as("job keeps running").isEqualTo(JobStatus.RUNNING);

        // Six bad records, six dead letters. The params and dead-letter sinks commit their transactions one after
        // the other, so the join's UnknownWorker may become visible a moment after the snapshot: wait for it.
        List<DeadLetter> dead = kafka.deadLetters();
        for (long until = System.nanoTime() + Duration.ofSeconds(30).toNanos(); dead.size() < 6
                && System.nanoTime() < until; dead = kafka.deadLetters()) {
            Thread.sleep(300);
        }
        List<String> seen = dead.stream().map(x -> x.getSourceTopic() + " " + x.getErrorType() + ": " + x.getReason())
            .toList();
        System.out.println("[FittingJobTest] dead letters: " + seen);
        assertThat(seen).anySatisfy(x -> assertThat(x).startsWith(Topics.TELEMETRY + " CorruptRecordException")
            .contains("bad magic"));
        assertThat(seen).anySatisfy(x -> assertThat(x).startsWith(Topics.COMPLETIONS + " UnknownSchemaException"));
        assertThat(seen).anySatisfy(x -> assertThat(x).startsWith(Topics.DECISIONS + " InvalidValue")
            .contains("recomputeQuadratic must be finite, got NaN"));
        assertThat(seen).anySatisfy(x -> assertThat(x).startsWith(Topics.COMPLETIONS + " InvalidValue")
            .contains("queueWaitUs must be in [0, 10000000000] µs, got -5"));
        assertThat(seen).anySatisfy(x -> assertThat(x).startsWith(Topics.COMPLETIONS + " UnknownWorker")
            .contains("w7").contains("w1"));
        assertThat(seen).anySatisfy(x -> assertThat(x).startsWith(Topics.CONTROL + " InvalidValue")
            .contains("PIN needs a version"));
        assertThat(dead).allSatisfy(x -> assertThat(x.getOffset()).isGreaterThanOrEqualTo(0));
        DeadLetter garbage = dead.stream().filter(x -> x.getErrorType().toString().equals("CorruptRecordException"))
            .findFirst().orElseThrow();
        assertThat(new String(garbage.getValue().array())).isEqualTo("not avro at all");

        // Replay both topics in order: whatever prefix a reader has seen, the active version is accepted.
        List<ParameterSnapshot> all = kafka.snapshots();
        assertThat(all).anySatisfy(p -> assertThat(p.getStatus()).isEqualTo(SnapshotStatus.REJECTED));
        ActivationRule rule = new ActivationRule();
        for (ParameterSnapshot p : all) {
            rule.onSnapshot(p);
            OptionalLong active = rule.activeVersion(scope);
            if (active.isPresent()) {
                ParameterSnapshot a = all.stream().filter(x -> x.getVersion() == active.getAsLong()).findFirst()
                    .orElseThrow();
                assertThat(a.getStatus()).as("active version %d", a.getVersion()).isEqualTo(SnapshotStatus.ACCEPTED);
            }
        }
        assertGapFree(all, scope);
    }

    @Test
    void restoreFromCheckpointPublishesNoDuplicateAndNoGap() throws Exception {
        TestKafka kafka = fixture.kafka();
        String scope = "pool-c";
        Workload w = new Workload(3, scope, startMs(), 0.05);
        JobSettings s = settings("restore");
        kafka.send(w.telemetry(40));
        JobClient job = fixture.start(s, null);
        for (int batch = 0; batch < 3; batch++) {
            kafka.send(w.requests(800));
            long rows = w.requests();
            kafka.awaitSnapshot(p -> p.getAlphaP().getSamples() == rows, Duration.ofSeconds(60), rows + " rows");
        }
        // Keep input flowing while the job is killed, so snapshots are in flight in open transactions.
        kafka.send(w.requests(800));
        Thread.sleep(700);
        job.cancel().get();
        while (!job.getJobStatus().get().isGloballyTerminalState()) {
            Thread.sleep(100);
        }
        int committedBefore = kafka.snapshots().size();
        Path checkpoint = latestCheckpoint(tmp.resolve("checkpoints"));
        fixture.start(s, checkpoint.toUri().toString());
        for (int batch = 0; batch < 2; batch++) {
            kafka.send(w.requests(800));
            long rows = w.requests();
            kafka.awaitSnapshot(p -> p.getAlphaP().getSamples() == rows, Duration.ofSeconds(60),
                rows + " rows after the restore");
        }
        List<ParameterSnapshot> all = kafka.snapshots();
        assertThat(all.size()).as("published after the restore").isGreaterThan(committedBefore);
        assertGapFree(all, scope);
        List<String> keys = kafka.readAll(Topics.PARAMS).stream().map(r -> new String(r.key())).toList();
        assertThat(keys).as("params keys").doesNotHaveDuplicates()
            .allSatisfy(k -> assertThat(k).startsWith(scope + "#"));
    }

    @Test
    void freshStartWithoutStateContinuesTheVersionSequenceFromTheTopic() throws Exception {
        TestKafka kafka = fixture.kafka();
        String scope = "pool-f";
        Workload w = new Workload(5, scope, startMs(), 0.05);
        kafka.send(w.telemetry(40));
        kafka.send(w.requests(800));
        JobClient first = fixture.start(settings("fresh-a"), null);
        long rows = w.requests();
        kafka.awaitSnapshot(p -> p.getAlphaP().getSamples() == rows, Duration.ofSeconds(60), rows + " rows");
        first.cancel().get();
        while (!first.getJobStatus().get().isGloballyTerminalState()) {
            Thread.sleep(100);
        }
        long before = kafka.snapshots().stream().mapToLong(ParameterSnapshot::getVersion).max().orElseThrow();
        assertThat(KafkaWiring.publishedParams(settings("probe")).newest()).containsEntry(scope, before);
        // `snapshots trim` deletes a version with a tombstone: the start-up read sees it gone, the newest unchanged
        kafka.send(new ProducerRecord<>(Topics.PARAMS,
            Topics.paramsKey(scope, before).getBytes(java.nio.charset.StandardCharsets.UTF_8), null));
        PublishedParams published = KafkaWiring.publishedParams(settings("probe"));
        assertThat(published.newest()).containsEntry(scope, before);
        assertThat(PublishedParams.stillPublished(published.newest(), published.live(), scope, before)).isFalse();
        assertThat(PublishedParams.stillPublished(published.newest(), published.live(), scope, before + 1)).isTrue();
        // A second job with fresh state (new group id: it reads the inputs from the beginning again, no
        // checkpoint, no savepoint) must continue at before + 1, not publish version 1 again.
        fixture.start(settings("fresh-b"), null);
        kafka.send(w.requests(400));
        long more = w.requests();
        kafka.awaitSnapshot(p -> p.getVersion() > before, Duration.ofSeconds(60), "a version after " + before);
        kafka.awaitSnapshot(p -> p.getAlphaP().getSamples() == more, Duration.ofSeconds(60), more + " rows");
        // the first version the new job published (awaitSnapshot returns the newest match: on a loaded machine
        // the job can publish twice between two polls)
        long firstAfter = kafka.snapshots().stream().mapToLong(ParameterSnapshot::getVersion).filter(v -> v > before)
            .min().orElseThrow();
        assertThat(firstAfter).isEqualTo(before + 1);
        assertGapFree(kafka.snapshots(), scope);
        List<String> keys = kafka.readAll(Topics.PARAMS).stream().filter(r -> r.value() != null)
            .map(r -> new String(r.key())).toList();
        assertThat(keys).as("params keys of snapshots (the tombstone above deletes one)").doesNotHaveDuplicates();
    }

    /**
     * A start without state on a topic where an earlier run left fitted snapshots: version 2 is active (3 was rejected),
     * fitted α_d 2 µs/token and λ 1/300 s⁻¹, its forest carried by version 1. The new job's first candidate is 4,
     * gated against 2, and carries what too few rows cannot fit yet (α_d, λ, the forest by reference) from it: the
     * DESIGN defaults (α_d 50, λ 1/120, no forest) would have been activated everywhere.
     */
    @Test
    void freshStartWithoutStateGatesItsFirstCandidateAgainstTheActiveSnapshotOnTheTopic() throws Exception {
        TestKafka kafka = fixture.kafka();
        String scope = "pool-s";
        ParameterSnapshot carrier = EarlierSnapshots.carrying(
            EarlierSnapshots.accepted(scope, 1, null, 3.0, 1 / 200.0), EarlierSnapshots.forest(5_000));
        ParameterSnapshot active = EarlierSnapshots.naming(EarlierSnapshots.accepted(scope, 2, 1L, 2.0, 1 / 300.0), 1);
        ParameterSnapshot rejected = EarlierSnapshots.accepted(scope, 3, 2L, 80.0, 1 / 30.0);
        rejected.setStatus(SnapshotStatus.REJECTED);
        kafka.send(List.of(EarlierSnapshots.record(carrier), EarlierSnapshots.record(active),
            EarlierSnapshots.record(rejected)));
        assertThat(kafka.activeVersion(scope)).isEqualTo(OptionalLong.of(2));

        Workload w = new Workload(17, scope, startMs(), 0.05);
        kafka.send(w.telemetry(40));
        kafka.send(w.requests(100)); // under min-fit-samples (200): no regression, no λ fit yet
        fixture.start(settings("seed-active"), null);
        ParameterSnapshot first = firstSnapshotAfter(kafka, scope, 3);

        assertThat(first.getVersion()).isEqualTo(4);
        assertThat(first.getParentVersion()).as("gated against the active version on the topic").isEqualTo(2L);
        assertCarriedFrom(active, first);
        assertThat(first.getQuantileModel()).as("the forest is named, not carried again").isNull();
        assertThat(first.getQuantileModelVersion()).as("the active version's forest, by its carrier").isEqualTo(1L);
        // what the selectors apply now: still the earlier run's fit, whichever version the rule makes active
        long activeNow = kafka.activeVersion(scope).orElseThrow();
        ParameterSnapshot applied = kafka.snapshots().stream().filter(p -> p.getVersion() == activeNow).findFirst()
            .orElseThrow();
        assertThat(applied.getAlphaD().getValue()).as("α_d of active version %d", activeNow).isEqualTo(2.0);
        assertThat(applied.getLambda().getValue()).as("λ of active version %d", activeNow).isEqualTo(1 / 300.0);
    }

    /** As above, the scope pinned to an older version on the control topic: that version is the parent. */
    @Test
    void freshStartWithoutStateGatesItsFirstCandidateAgainstThePinnedVersionOnTheTopic() throws Exception {
        TestKafka kafka = fixture.kafka();
        String scope = "pool-p";
        ParameterSnapshot pinned = EarlierSnapshots.accepted(scope, 1, null, 2.0, 1 / 300.0);
        ParameterSnapshot newest = EarlierSnapshots.accepted(scope, 2, 1L, 3.0, 1 / 200.0);
        kafka.send(List.of(EarlierSnapshots.record(pinned), EarlierSnapshots.record(newest)));
        kafka.control(control(scope, ControlAction.PIN, 1L, 1));
        assertThat(kafka.activeVersion(scope)).isEqualTo(OptionalLong.of(1));

        Workload w = new Workload(19, scope, startMs(), 0.05);
        kafka.send(w.telemetry(40));
        kafka.send(w.requests(100));
        fixture.start(settings("seed-pinned"), null);
        ParameterSnapshot first = firstSnapshotAfter(kafka, scope, 2);

        assertThat(first.getVersion()).isEqualTo(3);
        assertThat(first.getParentVersion()).as("gated against the pinned version").isEqualTo(1L);
        assertCarriedFrom(pinned, first);
        assertThat(kafka.activeVersion(scope)).as("still pinned").isEqualTo(OptionalLong.of(1));
    }

    /** Nothing on the topic: the first candidate is version 1, gated against nothing, with the defaults (unchanged). */
    @Test
    void freshStartOnAnEmptyTopicGatesItsFirstCandidateAgainstNothing() throws Exception {
        TestKafka kafka = fixture.kafka();
        String scope = "pool-e";
        JobSettings s = settings("seed-none");
        assertThat(KafkaWiring.publishedParams(s).active()).isEmpty();
        Workload w = new Workload(23, scope, startMs(), 0.05);
        kafka.send(w.telemetry(40));
        kafka.send(w.requests(100));
        fixture.start(s, null);
        ParameterSnapshot first = firstSnapshotAfter(kafka, scope, 0);

        assertThat(first.getVersion()).isEqualTo(1);
        assertThat(first.getParentVersion()).isNull();
        assertThat(first.getAlphaD().getValue()).as("the DESIGN default").isEqualTo(50.0);
        assertThat(first.getAlphaD().getWindowEndMs()).as("a default's window").isZero();
        assertThat(first.getLambda().getValue()).isEqualTo(1 / 120.0);
        assertThat(first.getQuantileModelVersion()).isNull();
    }

    /** The first snapshot of {@code scope} above {@code version} (the job may publish twice between two polls). */
    private static ParameterSnapshot firstSnapshotAfter(TestKafka kafka, String scope, long version)
            throws InterruptedException {
        kafka.awaitSnapshot(p -> p.getScope().toString().equals(scope) && p.getVersion() > version,
            Duration.ofSeconds(60), "of " + scope + " after version " + version);
        ParameterSnapshot first = kafka.snapshots().stream()
            .filter(p -> p.getScope().toString().equals(scope) && p.getVersion() > version)
            .min(Comparator.comparingLong(ParameterSnapshot::getVersion)).orElseThrow();
        System.out.println("[FittingJobTest] first snapshot after " + version + ": version " + first.getVersion() + " "
            + first.getStatus() + " parent " + first.getParentVersion() + " " + first.getRejectReasons());
        return first;
    }

    /** α_d and λ, which 100 rows cannot fit, carried from {@code from}: its values, unfitted here, with its windows. */
    private static void assertCarriedFrom(ParameterSnapshot from, ParameterSnapshot s) {
        assertThat(s.getAlphaD().getValue()).as("α_d").isEqualTo(from.getAlphaD().getValue());
        assertThat(s.getAlphaD().getSamples()).as("α_d not fitted in this version").isZero();
        assertThat(s.getAlphaD().getWindowEndMs()).as("α_d keeps the window it was fitted on")
            .isEqualTo(from.getAlphaD().getWindowEndMs());
        assertThat(s.getLambda().getValue()).as("λ").isEqualTo(from.getLambda().getValue());
        assertThat(s.getLambda().getSamples()).as("λ not fitted in this version").isZero();
    }

    /**
     * The newest completed checkpoint (a chk-n directory with _metadata) in the job directories under {@code dir}.
     * Lists rather than walks: right after a cancelled job reports terminal, Flink may still be deleting aborted or
     * superseded chk-n directories (and a walk failed on one vanishing under it, NoSuchFileException); a directory
     * gone between listing and checking is skipped, as {@code cli}'s NewestCheckpoint does.
     */
    static Path latestCheckpoint(Path dir) throws IOException {
        Path newest = null;
        long newestN = -1;
        List<Path> jobDirs;
        try (Stream<Path> s = Files.list(dir)) {
            jobDirs = s.toList();
        }
        for (Path jobDir : jobDirs) {
            List<Path> entries;
            try (Stream<Path> s = Files.list(jobDir)) {
                entries = s.toList();
            } catch (NoSuchFileException | NotDirectoryException e) {
                continue; // vanished since the listing, or not a job directory
            }
            for (Path p : entries) {
                String f = p.getFileName().toString();
                if (f.matches("chk-\\d{1,18}") && Files.isRegularFile(p.resolve("_metadata"))) {
                    long n = Long.parseLong(f.substring(4));
                    if (n > newestN) {
                        newestN = n;
                        newest = p;
                    }
                }
            }
        }
        if (newest == null) {
            throw new AssertionError("no completed checkpoint under " + dir);
        }
        return newest;
    }

}
