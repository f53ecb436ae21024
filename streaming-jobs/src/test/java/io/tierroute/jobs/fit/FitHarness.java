package io.tierroute.jobs.fit;

import io.tierroute.jobs.JobSettings;
import io.tierroute.jobs.PublishedParams;
import io.tierroute.jobs.ingest.TelemetrySample;
import io.tierroute.jobs.join.JoinedRow;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotControl;
import java.time.Duration;
import java.util.SplittableRandom;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;

/**
 * The fitting operator on Flink's keyed two-input test harness, with inputs of any scope: the fixtures of the tests
 * beside {@link ScopeFitFunctionTest} (whose own helpers know one scope only).
 */
final class FitHarness {
    /** The publish interval of {@link #settings()}, ms. */
    static final long TICK = 500;

    final KeyedTwoInputStreamOperatorTestHarness<String, ScopeInput, SnapshotControl, ParameterSnapshot> h;

    private FitHarness(OperatorSubtaskState restore, JobSettings s, PublishedParams published) throws Exception {
        h = new KeyedTwoInputStreamOperatorTestHarness<>(
            new KeyedCoProcessOperator<>(new ScopeFitFunction(s, published)),
            new ScopeFitFunctionTest.InputScope(), new ScopeFitFunctionTest.ControlScope(), Types.STRING);
        h.setup();
        if (restore != null) {
            h.initializeState(restore);
        }
        h.open();
    }

    static FitHarness open(JobSettings s) throws Exception {
        return new FitHarness(null, s, PublishedParams.NONE);
    }

    /** A job started after reading {@code published} from the params topic. */
    static FitHarness open(JobSettings s, PublishedParams published) throws Exception {
        return new FitHarness(null, s, published);
    }

    static FitHarness restore(OperatorSubtaskState state, JobSettings s) throws Exception {
        return new FitHarness(state, s, PublishedParams.NONE);
    }

    static JobSettings.Builder settings() {
        return JobSettings.builder().set("bootstrap-servers", "unused:9092")
            .set("publish-interval", Duration.ofMillis(TICK)).set("forest-interval", Duration.ofHours(1));
    }

    ScopeFitFunction function() {
        return (ScopeFitFunction) ((KeyedCoProcessOperator<?, ?, ?, ?>) h.getOperator()).getUserFunction();
    }

    void input(JoinedRow r) throws Exception {
        h.processElement1(new StreamRecord<>(ScopeInput.of(r)));
    }

    void input(TelemetrySample t) throws Exception {
        h.processElement1(new StreamRecord<>(ScopeInput.of(t)));
    }

    void control(SnapshotControl c) throws Exception {
        h.processElement2(new StreamRecord<>(c));
    }

    /**
     * {@code n} rows of {@code scope}, 10 ms of event time apart from {@code fromMs} on, from the known linear truth of
     * {@link #row(String, long, SplittableRandom, double)} with α_d 50, drawn from {@code rnd}.
     */
    void rows(String scope, int n, long fromMs, SplittableRandom rnd) throws Exception {
        for (int i = 0; i < n; i++) {
            input(row(scope, fromMs + 10L * i, rnd));
        }
    }

    static JoinedRow row(String scope, long eventTimeMs, SplittableRandom rnd) {
        return row(scope, eventTimeMs, rnd, 50);
    }

    /** A joined row whose realised time follows known α's (α_p 1 µs a token, in-flight decode {@code alphaD} µs a token), 2 % noise. */
    static JoinedRow row(String scope, long eventTimeMs, SplittableRandom rnd, double alphaD) {
        JoinedRow r = new JoinedRow();
        r.scope = scope;
        r.worker = "w1";
        r.eventTimeMs = eventTimeMs;
        r.regressors.pEffTokens = 10000 + rnd.nextInt(8000);
        r.regressors.recomputeQuadratic = rnd.nextDouble() * 1e6;
        r.regressors.inflightDecodeTokens = rnd.nextDouble() * 400;
        r.regressors.inflightDecodeQuadratic = rnd.nextDouble() * 1e6;
        r.regressors.tierTransferUs = rnd.nextDouble() * 20000;
        r.regressors.queueLength = rnd.nextInt(20);
        r.regressors.affinityDecay = rnd.nextDouble() < 0.5 ? rnd.nextDouble() : 0;
        r.regressors.expectedToolHitFraction = rnd.nextDouble() < 0.5 ? rnd.nextDouble() : 0;
        double y = r.regressors.pEffTokens + 1e-4 * r.regressors.recomputeQuadratic
            + alphaD * r.regressors.inflightDecodeTokens + 0.001 * r.regressors.inflightDecodeQuadratic
            + r.regressors.tierTransferUs + 100 * Math.pow(Math.max(0, r.regressors.queueLength - 4), 2)
            - 5000 * r.regressors.affinityDecay - 4000 * r.regressors.expectedToolHitFraction;
        r.realisedUs = y * (1 + 0.02 * rnd.nextGaussian());
        r.request.isl = 1000;
        r.request.model = "m";
        r.request.maxTokens = 512;
        r.outputTokens = 100;
        return r;
    }

    /** One second of a worker's telemetry ending at {@code endMs}, with one CPU link sample. */
    static TelemetrySample telemetry(String scope, String worker, long endMs) {
        TelemetrySample t = new TelemetrySample();
        t.scope = scope;
        t.worker = worker;
        t.engineType = "sim";
        t.hardwarePool = "h100";
        t.timestampMs = endMs;
        t.intervalMs = 1000;
        t.runningRequests = 4;
        t.prefillTokens = 4000;
        t.prefillBusyUs = 160_000;
        t.decodeSteps = 40;
        t.decodeBusyUs = 40_000;
        t.linkTiers = new String[] {"CPU"};
        t.linkBytes = new long[] {5_000_000_000L};
        t.linkIntervalMs = new long[] {1000};
        return t;
    }

    static SnapshotControl control(String scope, ControlAction a, Long version, long sequence, long timestampMs) {
        return SnapshotControl.newBuilder().setScope(scope).setAction(a).setVersion(version).setReason("t")
            .setActor("test").setTimestampMs(timestampMs).setSequence(sequence).build();
    }
}
