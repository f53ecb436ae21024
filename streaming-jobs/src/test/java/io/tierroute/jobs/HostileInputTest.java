package io.tierroute.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tierroute.schemas.snapshot.SnapshotParameter;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.CompletionLog;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.EngineTelemetry;
import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.RoutingDecision;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.TierBandwidth;
import io.tierroute.schemas.avro.TierTokens;
import io.tierroute.schemas.avro.WorkerTierRho;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * One run of the fitting job (real Flink MiniCluster, real embedded KRaft broker) fed a workload with
 * KNOWN true parameters and, interleaved with it, a catalogue of hostile records on all four input
 * topics: NaN, infinities, negative and absurd values, unknown workers and scopes, duplicates, late
 * records, event times years in the future or past, telemetry whose clock jumps, control records for an
 * unknown scope or version. Each kind is checked for what docs/hostile-input.md says the job does
 * (dead letter with its reason, or a counter), the job keeps running, and every snapshot published as
 * ACCEPTED (all a selector could ever activate) has only finite values inside the gate's bounds and
 * α's within a tolerance of the truth.
 */
class HostileInputTest {
    /** Metrics of the job's operators, read by name (counters are summed over subtasks). */
    private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

    /** Restart strategy none: a hostile record that kills a task fails the test. */
    @RegisterExtension
    static final MiniClusterExtension FLINK = FittingJobFixture.miniCluster(METRICS::addToConfiguration);

    private static final String SCOPE = "hostile";
    /** α tolerance vs the truth: the fit of ~6 000 rows with 5 % noise is well inside it. */
    private static final double ALPHA_TOLERANCE = 0.10;

    @RegisterExtension
    final FittingJobFixture fixture = new FittingJobFixture();
    @TempDir
    Path tmp;

    @Test
    void hostileRecordsAreDeadLetteredOrCountedAndNeverReachAnAcceptedSnapshot() throws Exception {
        TestKafka kafka = fixture.kafka();
        long startMs = System.currentTimeMillis() - Duration.ofMinutes(40).toMillis();
        Workload w = new Workload(8, SCOPE, startMs, 0.05);
        // decision-timeout shortened so a duplicated decision's timer fires within the run.
        JobSettings s = fixture.settings(tmp, "hostile").toBuilder()
            .set("decision-timeout", Duration.ofMinutes(1)).build();

        // Phase A: clean traffic, the reference fit.
        // Telemetry only after the regression's first snapshot: the workload's telemetry prior for α_p (40)
        // is far from its regression truth (1.0), and a prior-based first version would make the gate's
        // jump check reject every later one (not what this test is about).
        List<ProducerRecord<byte[], byte[]>> phaseA = w.requests(3000);
        JobClient job = fixture.start(s, null);
        JobID id = job.getJobID();
        kafka.send(phaseA);
        long rowsA = w.requests();
        kafka.awaitSnapshot(p -> p.getStatus() == SnapshotStatus.ACCEPTED && p.getAlphaP().getSamples() == rowsA,
            Duration.ofSeconds(60), "accepted with the " + rowsA + " clean rows");
        kafka.send(w.telemetry(30));

        // Late records: valid request pairs stamped 20 minutes behind the watermark (allowed out-of-orderness
        // is 5 s). The job publishes on the wall clock and the join is by request id, not by window, so a late
        // pair still joins and is fitted (truthful rows).
        long resumeAt = w.requests() * 10 + startMs;
        w.clock(startMs - Duration.ofMinutes(20).toMillis());
        int late = 5;
        kafka.send(w.requests(late));
        long rowsLate = rowsA + late;
        kafka.awaitSnapshot(p -> p.getAlphaP().getSamples() == rowsLate, Duration.ofSeconds(60), "the late rows fitted");

        // Phase B: the hostile catalogue (plus a few legitimate-but-awkward records whose handling is shown).
        long now = System.currentTimeMillis();
        long lastT = phaseA.get(phaseA.size() - 2).timestamp(); // the newest decision of phase A
        stamp = lastT;
        long tenYears = Duration.ofDays(3650).toMillis();
        List<ProducerRecord<byte[], byte[]>> hostile = new ArrayList<>();

        // -- telemetry
        EngineTelemetry goodT = Codecs.ENGINE_TELEMETRY.decode(w.telemetry(1).get(0).value()); // w0, one more second
        long tT = goodT.getTimestampMs();
        hostile.add(telemetry(goodT, t -> {}));                                                  // (valid)
        hostile.add(telemetry(goodT, t -> t.setWaitingRequests(-1)));                            // negative
        hostile.add(telemetry(goodT, t -> t.setPrefillBusyUs(-5)));                              // negative
        hostile.add(telemetry(goodT, t -> t.setIntervalMs(0)));                                  // zero interval
        hostile.add(telemetry(goodT, t -> t.setTimestampMs(now + tenYears)));                    // far future
        hostile.add(telemetry(goodT, t -> t.setTimestampMs(0)));                                 // epoch / missing
        hostile.add(telemetry(goodT, t -> t.setWorker("")));                                     // no worker
        hostile.add(telemetry(goodT, t -> t.setScope("")));                                      // no scope
        // estimator-level (decode and validate fine, the telemetry priors refuse them, counted):
        hostile.add(telemetry(goodT, t -> { t.setTimestampMs(tT + 1000); t.setPrefillTokens(1L << 62); }));   // absurd tokens
        hostile.add(telemetry(goodT, t -> {}));                                                       // duplicate
        hostile.add(telemetry(goodT, t -> t.setTimestampMs(tT - 5000)));                              // clock backwards
        hostile.add(telemetry(goodT, t -> t.setTimestampMs(Duration.ofDays(365 * 31).toMillis())));   // 2000-12, years old
        int telemetryRejectedByPriors = 4;
        // unknown worker: the job has no worker registry, a new name is a new worker (ρ is per reporting worker)
        hostile.add(telemetry(goodT, t -> t.setWorker("ghost-worker")));
        // unknown scope: a new scope key; it gets its own (separate) fit and never touches SCOPE's
        hostile.add(telemetry(goodT, t -> t.setScope("ghost-scope")));

        // -- decisions (each with an OK completion, so only the decision's value decides)
        String[] decisionCases = {"nan", "inf", "ninf", "neg", "aff", "fut", "past", "huge"};
        for (String c : decisionCases) {
            String rid = "bad-d-" + c;
            RoutingDecision d = w.decision(rid, "w1", lastT, 2000, 0, 2e6, 0, 0, 0, 0, 0, null, 0, 2000);
            switch (c) {
                case "nan" -> d.getFeatures().setRecomputeQuadratic(Double.NaN);
                case "inf" -> d.getFeatures().setInflightDecodeTokens(Double.POSITIVE_INFINITY);
                case "ninf" -> d.getFeatures().setKvOverflowTokens(Double.NEGATIVE_INFINITY);
                case "neg" -> d.getFeatures().setPEffTokens(-2000);
                case "aff" -> d.getFeatures().setAffinityDecay(1.5);
                case "fut" -> d.setTimestampMs(now + tenYears);
                case "huge" -> d.getFeatures().setRecomputeQuadratic(1e300); // finite, absurd: passes the validator
                default -> d.setTimestampMs(Duration.ofDays(365 * 20).toMillis()); // 1989
            }
            hostile.add(decision(d));
            hostile.add(completion(w.completion(rid, "w1", lastT, 5000, 2000, 0)));
        }
        // -- completions (each with a valid decision)
        String[] completionCases = {"negq", "order", "cached", "fut", "past", "ttft", "huge"};
        for (String c : completionCases) {
            String rid = "bad-c-" + c;
            hostile.add(decision(w.decision(rid, "w2", lastT, 2000, 0, 2e6, 0, 0, 0, 0, 0, null, 0, 2000)));
            CompletionLog k = w.completion(rid, "w2", lastT, 5000, 2000, 0);
            switch (c) {
                case "negq" -> k.setQueueWaitUs(-1);
                case "order" -> k.setFinishedTimeMs(k.getArrivalTimeMs() - 1);                  // finished before arrival
                case "cached" -> k.setCachedTokens(List.of(TierTokens.newBuilder().setTier(Tier.HBM).setTokens(5000).build()));
                case "fut" -> k.setFinishedTimeMs(now + tenYears);
                case "past" -> { k.setArrivalTimeMs(1000L); k.setFinishedTimeMs(2000L); }
                case "huge" -> k.setQueueWaitUs(1_000_000_000_000_000L); // 31 years of queueing: past a phase's bound
                default -> k.setTtftUs(-3L);
            }
            hostile.add(completion(k));
        }
        // unknown worker: the completion names a worker the decision did not route to
        hostile.add(decision(w.decision("ghost-c", "w3", lastT, 2000, 0, 2e6, 0, 0, 0, 0, 0, null, 0, 2000)));
        hostile.add(completion(w.completion("ghost-c", "ghost-worker", lastT, 5000, 2000, 0)));
        // duplicates of good completions already joined in phase A: no decision waits for them any more
        int duplicatedCompletions = 3;
        for (int i = 1; i <= duplicatedCompletions; i++) {
            hostile.add(phaseA.get(phaseA.size() - 2 * i + 1));
        }
        // a duplicated decision of a joined request: it waits for a completion that never comes
        hostile.add(phaseA.get(phaseA.size() - 8));

        // -- control
        hostile.add(control(SCOPE, ControlAction.PIN, 1L, 0));            // sequence 0
        hostile.add(control(SCOPE, ControlAction.UNPIN, -5L, 7));      // negative version
        hostile.add(control("", ControlAction.UNPIN, null, 7));           // no scope
        hostile.add(control("ghost-scope-2", ControlAction.PIN, 3L, 1));  // unknown scope: applied there, no effect here
        hostile.add(control(SCOPE, ControlAction.PIN, 999L, 1));          // unknown version: nothing active while pinned
        kafka.send(hostile);

        long rowsB = rowsLate;
        ParameterSnapshot afterB = kafka.awaitSnapshot(p -> p.getAlphaP().getSamples() >= rowsB
            && p.getControlSequence() == 1, Duration.ofSeconds(60), "the pin stamped");
        assertThat(job.getJobStatus().get()).as("job keeps running").isEqualTo(JobStatus.RUNNING);
        assertThat(afterB.getParentVersion()).as("pinned to a version that does not exist: gated against nothing")
            .isNull();

        // Phase C: a clock jump forward: a telemetry sample of w3 30 s ahead (inside the 1 min skew allowed),
        // then clean traffic 5 min later in event time (fires the grace / timeout timers of phase B).
        EngineTelemetry jump = Codecs.ENGINE_TELEMETRY.decode(w.telemetry(1).get(3).value());
        kafka.send(telemetry(jump, t -> t.setTimestampMs(now + Duration.ofSeconds(30).toMillis())));
        kafka.send(control(SCOPE, ControlAction.UNPIN, 999L, 2));
        kafka.send(control(SCOPE, ControlAction.PIN, 1L, 1)); // stale sequence: ignored
        w.clock(resumeAt + Duration.ofMinutes(5).toMillis());
        int telemetryC = 20;
        kafka.send(w.telemetry(telemetryC));
        kafka.send(w.requests(3000));
        long rowsC = rowsB + 3000;
        ParameterSnapshot last = kafka.awaitSnapshot(p -> p.getStatus() == SnapshotStatus.ACCEPTED
            && p.getAlphaP().getSamples() == rowsC && p.getControlSequence() == 2, Duration.ofSeconds(60),
            "accepted with all " + rowsC + " rows after the unpin");
        assertThat(job.getJobStatus().get()).as("job keeps running").isEqualTo(JobStatus.RUNNING);

        // Dead letters: one per invalid record, with the reason naming the field.
        List<String> dead = kafka.deadLetters().stream()
            .map(x -> x.getSourceTopic() + " " + x.getErrorType() + ": " + x.getReason()).toList();
        System.out.println("[HostileInputTest] dead letters:\n  " + String.join("\n  ", dead));
        String tel = Topics.TELEMETRY + " InvalidValue: ";
        String dec = Topics.DECISIONS + " InvalidValue: ";
        String com = Topics.COMPLETIONS + " InvalidValue: ";
        String ctl = Topics.CONTROL + " InvalidValue: ";
        List<String> expected = List.of(
            tel + "waitingRequests must be >= 0, got -1",
            tel + "prefillBusyUs must be >= 0, got -5",
            tel + "intervalMs must be > 0, got 0",
            tel + "timestampMs " + (now + tenYears) + " is more than 60000 ms in the future (now ",
            tel + "timestampMs 0 is before 2000-01-01 (a missing timestamp?)",
            tel + "worker is empty",
            tel + "scope is empty",
            dec + "features.recomputeQuadratic must be finite, got NaN",
            dec + "features.inflightDecodeTokens must be finite, got Infinity",
            dec + "features.kvOverflowTokens must be finite, got -Infinity",
            dec + "features.pEffTokens must be >= 0, got -2000",
            dec + "features.affinityDecay must be <= 1, got 1.5",
            dec + "timestampMs " + (now + tenYears) + " is more than 60000 ms in the future (now ",
            dec + "timestampMs " + Duration.ofDays(365 * 20).toMillis() + " is before 2000-01-01 (a missing timestamp?)",
            com + "queueWaitUs must be in [0, 10000000000] µs, got -1",
            com + "finishedTimeMs " + (lastT - 1) + " is before arrivalTimeMs " + lastT,
            com + "cachedTokens sum 5000 exceeds inputTokens 2000",
            com + "finishedTimeMs " + (now + tenYears) + " is more than 60000 ms in the future (now ",
            com + "arrivalTimeMs 1000 is before 2000-01-01 (a missing timestamp?)",
            com + "ttftUs must be in [0, 10000000000] or null, got -3",
            com + "queueWaitUs must be in [0, 10000000000] µs, got 1000000000000000",
            ctl + "sequence must be >= 1, got 0",
            ctl + "version must be >= 1 or null, got -5",
            ctl + "scope is empty",
            Topics.COMPLETIONS + " UnknownWorker: completion of request ghost-c names worker ghost-worker");
        for (String e : expected) {
            assertThat(dead.stream().filter(x -> x.startsWith(e)).count()).as("dead letters starting with: " + e)
                .isEqualTo(1);
        }
        assertThat(dead).as("nothing else dead-lettered").hasSize(expected.size());

        String[] names = {"deadLetters", "decodedRecords", "joinedRows", "completionsWithoutDecision",
            "decisionsNeverCompleted", "duplicateJoinInputs", "failedCompletions", "completionWorkerMismatches",
            "inputsRejectedByEstimators", "controlsApplied", "controlsIgnored", "snapshotsAccepted", "snapshotsRejected"};
        StringBuilder m = new StringBuilder();
        for (String n : names) {
            m.append(' ').append(n).append('=').append(counter(id, n));
        }
        System.out.println("[HostileInputTest] counters:" + m);
        List<ParameterSnapshot> all = kafka.snapshots();
        for (ParameterSnapshot p : all) {
            System.out.println("[HostileInputTest] " + p.getScope() + " v" + p.getVersion() + " " + p.getStatus()
                + " seq" + p.getControlSequence() + " n=" + p.getAlphaP().getSamples() + " aP=" + p.getAlphaP().getValue()
                + " aD=" + p.getAlphaD().getValue() + " rho=" + p.getRho().size() + " " + p.getRejectReasons());
        }

        // Counters. Join: 8 decisions dead-lettered leave their (valid) completions alone, plus the 3 duplicated
        // completions; the 7 completions dead-lettered leave their decisions alone, plus the duplicated decision; one
        // worker mismatch. The absurd-but-valid decision ("huge") joined and was refused by the regression (so every
        // row it took is one of the clean ones: samples == rowsC above).
        int deadDecisions = decisionCases.length - 1;
        int deadCompletions = completionCases.length;
        awaitCounter(id, "completionsWithoutDecision", deadDecisions + duplicatedCompletions);
        awaitCounter(id, "decisionsNeverCompleted", deadCompletions + 1);
        awaitCounter(id, "completionWorkerMismatches", 1);
        assertThat(counter(id, "joinedRows")).as("joined: clean + late + the absurd row").isEqualTo(rowsC + 1);
        assertThat(counter(id, "deadLetters")).as("source dead letters (UnknownWorker comes from the join)")
            .isEqualTo(expected.size() - 1);
        // Priors refuse the 4 hostile samples of phase B and, after w3's clock jumped 30 s ahead, every later
        // w3 sample of phase C (out of order); the regression refuses the absurd row.
        assertThat(counter(id, "inputsRejectedByEstimators")).isGreaterThanOrEqualTo(telemetryRejectedByPriors
            + telemetryC + 1);
        assertThat(counter(id, "controlsIgnored")).as("the stale sequence").isEqualTo(1);
        assertThat(counter(id, "controlsApplied")).as("ghost-scope-2 PIN, PIN 999, UNPIN 999").isEqualTo(3);

        // Everything a selector could activate: every ACCEPTED snapshot of every scope is finite and in bounds.
        assertThat(all).filteredOn(p -> p.getScope().toString().equals("ghost-scope-2")).as("control alone publishes nothing")
            .isEmpty();
        assertThat(all).filteredOn(p -> p.getScope().toString().equals("ghost-scope")).as("an unknown scope is its own key")
            .isNotEmpty().allSatisfy(p -> assertThat(p.getAlphaP().getSamples()).isZero());
        for (ParameterSnapshot p : all) {
            if (p.getStatus() != SnapshotStatus.ACCEPTED) {
                continue;
            }
            String v = p.getScope() + " v" + p.getVersion();
            for (SnapshotParameter sp : SnapshotParameter.SCALARS) {
                double x = sp.get(p).getValue();
                assertThat(Double.isFinite(x) && sp.inBounds(x)).as("%s %s = %s in %s", v, sp.field(), x, sp.boundsText())
                    .isTrue();
            }
            for (TierBandwidth b : p.getBandwidths()) {
                double x = b.getBytesPerSecond().getValue();
                assertThat(Double.isFinite(x) && SnapshotParameter.BANDWIDTH.inBounds(x)).as("%s bandwidth %s", v, x).isTrue();
            }
            for (WorkerTierRho r : p.getRho()) {
                double x = r.getRho().getValue();
                assertThat(Double.isFinite(x) && SnapshotParameter.RHO.inBounds(x)).as("%s rho %s", v, x).isTrue();
            }
            if (p.getScope().toString().equals(SCOPE) && p.getAlphaP().getSamples() >= rowsA) {
                FittedValue[] alphas = {p.getAlphaP(), p.getAlphaP2(), p.getAlphaD(), p.getAlphaD2(), p.getAlphaT(),
                    p.getAlphaHo(), p.getAlphaWf(), p.getAlphaWf2()};
                for (int k = 0; k < alphas.length; k++) {
                    assertThat(alphas[k].getValue()).as("%s %s", v, Workload.NAMES[k])
                        .isCloseTo(Workload.TRUTH[k], within(ALPHA_TOLERANCE * Workload.TRUTH[k]));
                }
            }
        }
        assertThat(last.getAlphaP().getSamples()).as("no hostile row in the fit").isEqualTo(rowsC);
    }

    private static void awaitCounter(JobID id, String name, long want) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 20_000;
        while (counter(id, name) != want && System.currentTimeMillis() < deadline) {
            Thread.sleep(200);
        }
        assertThat(counter(id, name)).as(name).isEqualTo(want);
    }

    private static ProducerRecord<byte[], byte[]> telemetry(EngineTelemetry base, Consumer<EngineTelemetry> change) {
        EngineTelemetry t = EngineTelemetry.newBuilder(base).build();
        change.accept(t);
        return new ProducerRecord<>(Topics.TELEMETRY, null, base.getTimestampMs(), Workload.key(t.getWorker()),
            Codecs.ENGINE_TELEMETRY.encode(t));
    }

    /**
     * Kafka timestamp of the hostile records: the workload's clock, as a producer stamping event time would.
     * A dead letter's event time is its Kafka timestamp: stamped "now" (40 min ahead of the workload) they
     * would advance the watermark and fire every pending join timer at once.
     */
    private long stamp;

    private ProducerRecord<byte[], byte[]> decision(RoutingDecision d) {
        return new ProducerRecord<>(Topics.DECISIONS, null, stamp, Workload.key(d.getRequestId()),
            Codecs.ROUTING_DECISION.encode(d));
    }

    private ProducerRecord<byte[], byte[]> completion(CompletionLog c) {
        return new ProducerRecord<>(Topics.COMPLETIONS, null, stamp, Workload.key(c.getRequestId()),
            Codecs.COMPLETION_LOG.encode(c));
    }

    private static ProducerRecord<byte[], byte[]> control(String scope, ControlAction a, Long version, long seq) {
        SnapshotControl c = SnapshotControl.newBuilder().setScope(scope).setAction(a).setVersion(version)
            .setReason("hostile").setActor("HostileInputTest").setTimestampMs(System.currentTimeMillis())
            .setSequence(seq).build();
        return new ProducerRecord<>(Topics.CONTROL, Workload.key(scope.isEmpty() ? "none" : scope),
            Codecs.SNAPSHOT_CONTROL.encode(c));
    }

    private static long counter(JobID id, String name) {
        return JobCounters.sum(METRICS, id, name);
    }
}
