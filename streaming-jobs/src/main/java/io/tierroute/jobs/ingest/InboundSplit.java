package io.tierroute.jobs.ingest;

import io.tierroute.schemas.AvroTrust;
import io.tierroute.schemas.avro.CompletionLog;
import io.tierroute.schemas.avro.CostBreakdown;
import io.tierroute.schemas.avro.CostFeatures;
import io.tierroute.schemas.avro.DeadLetter;
import io.tierroute.schemas.avro.EngineTelemetry;
import io.tierroute.schemas.avro.RequestFeatures;
import io.tierroute.schemas.avro.RequestStatus;
import io.tierroute.schemas.avro.RoutingDecision;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.TierLinkSample;
import io.tierroute.schemas.avro.TierTokens;
import io.tierroute.schemas.avro.TierTransfer;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Chained right after a source: a dead letter goes to {@link #DEAD_LETTERS}, a decoded record is
 * converted into the compact row the keyed operators shuffle. One subclass per input topic.
 */
public abstract class InboundSplit<O> extends ProcessFunction<Inbound, O> {
    private static final long serialVersionUID = 1L;

    /** Side output of every record that could not be used, with its reason. */
    public static final OutputTag<DeadLetter> DEAD_LETTERS =
        new OutputTag<>("dead-letters", TypeInformation.of(DeadLetter.class));

    @Override
    public void open(OpenContext openContext) {
        AvroTrust.install();
    }

    @Override
    public void processElement(Inbound in, Context ctx, Collector<O> out) {
        if (in.deadLetter != null) {
            ctx.output(DEAD_LETTERS, in.deadLetter);
        } else {
            out.collect(convert(in));
        }
    }

    abstract O convert(Inbound in);

    static String str(CharSequence s) {
        return s == null ? null : s.toString();
    }

    /** {@code EngineTelemetry} → {@link TelemetrySample}. */
    public static final class Telemetry extends InboundSplit<TelemetrySample> {
        private static final long serialVersionUID = 1L;

        @Override
        TelemetrySample convert(Inbound in) {
            EngineTelemetry t = in.telemetry;
            TelemetrySample s = new TelemetrySample();
            s.scope = str(t.getScope());
            s.worker = str(t.getWorker());
            s.engineType = str(t.getEngineType());
            s.hardwarePool = str(t.getHardwarePool());
            s.timestampMs = t.getTimestampMs();
            s.intervalMs = t.getIntervalMs();
            s.runningRequests = t.getRunningRequests();
            s.prefillTokens = t.getPrefillTokens();
            s.prefillBusyUs = t.getPrefillBusyUs();
            s.decodeSteps = t.getDecodeSteps();
            s.decodeBusyUs = t.getDecodeBusyUs();
            int n = t.getLinks().size();
            s.linkTiers = new String[n];
            s.linkBytes = new long[n];
            s.linkIntervalMs = new long[n];
            for (int i = 0; i < n; i++) {
                TierLinkSample l = t.getLinks().get(i);
                s.linkTiers[i] = l.getTier().name();
                s.linkBytes[i] = l.getBytesMoved();
                s.linkIntervalMs[i] = l.getIntervalMs();
            }
            return s;
        }
    }

    /** {@code RoutingDecision} → {@link DecisionRow}. */
    public static final class Decisions extends InboundSplit<DecisionRow> {
        private static final long serialVersionUID = 1L;

        @Override
        DecisionRow convert(Inbound in) {
            RoutingDecision d = in.decision;
            CostFeatures f = d.getFeatures();
            RequestFeatures q = d.getRequest();
            DecisionRow r = new DecisionRow();
            r.requestId = str(d.getRequestId());
            r.scope = str(d.getScope());
            r.worker = str(d.getChosenWorker());
            r.timestampMs = d.getTimestampMs();
            CostRegressors x = r.regressors;
            // A congested tier cut off: the engine still loaded what it held there, so p_eff is not what it computed.
            x.pEffTokens = f.getCutOffTier() != null ? CostRegressors.UNKNOWN : f.getPEffTokens();
            // C_kv and C_queue are both priced at α_p, so their tokens share the α_p-priced column the
            // regression adds to p_eff; without the queued prefill, queue wait would load onto α_d. A decision
            // written without it has no such column: unknown, and the regression leaves the row out.
            x.kvOverflowTokens = in.queuedPrefillUnknown ? CostRegressors.UNKNOWN
                : f.getKvOverflowTokens() + f.getQueuedPrefillTokens();
            x.recomputeQuadratic = f.getRecomputeQuadratic();
            x.inflightDecodeTokens = f.getInflightDecodeTokens();
            x.inflightDecodeQuadratic = f.getInflightDecodeQuadratic();
            double tier = 0;
            for (TierTransfer t : f.getTierTransfers()) {
                tier += t.getTransferUs();
            }
            x.tierTransferUs = tier;
            x.queueLength = f.getQueueLength();
            x.affinityDecay = f.getAffinityDecay();
            x.expectedToolHitFraction = f.getExpectedToolHitFraction();
            r.idleSinceLastStepMs = f.getIdleSinceLastStepMs();
            Long held = f.getLastWorkerHeldTokens();
            r.lastWorkerHeldTokens = held != null ? held
                : in.lastWorkerHeldUnsaid ? DecisionRow.HELD_UNSAID : DecisionRow.HELD_NOT_OBSERVED;
            OutputFeatures o = r.request;
            o.isl = q.getIsl();
            o.model = str(q.getModel());
            o.lora = str(q.getLora());
            o.stepIndex = q.getStepIndex();
            o.expectedTool = str(q.getExpectedTool());
            o.maxTokens = q.getMaxTokens();
            o.outputHint = q.getOutputHint();
            o.prefixGroupId = q.getPrefixGroupId();
            o.previousStepOutputTokens = q.getPreviousStepOutputTokens();
            r.partition = in.partition;
            r.offset = in.offset;
            // The admission wait's inputs. A decision of the older schema has no kvUsedTokens, inFlight or queueUs:
            // their 0s (Avro's defaults) would make it a control of k's fit (W = 0) with an inflated excess wait,
            // so they stay unknown and the row gives no KvWaitRow.
            AdmissionInputs a = r.admission;
            CostBreakdown cost = d.getCost();
            if (!in.admissionWaitUnknown) {
                a.kvUsedTokens = f.getKvUsedTokens();
                a.inFlight = f.getInFlight();
                a.predictedQueueUs = cost.getQueueUs();
            }
            a.predictedOutputTokens = q.getPredictedOutputTokens();
            a.missingKvTokens = MissingKv.tokens(f, q.getIsl());
            a.predictedPrefillUs = cost.getPrefillUs();
            return r;
        }
    }

    /** {@code CompletionLog} → {@link CompletionRow}. */
    public static final class Completions extends InboundSplit<CompletionRow> {
        private static final long serialVersionUID = 1L;

        @Override
        CompletionRow convert(Inbound in) {
            CompletionLog c = in.completion;
            CompletionRow r = new CompletionRow();
            r.requestId = str(c.getRequestId());
            r.scope = str(c.getScope());
            r.worker = str(c.getWorker());
            r.finishedTimeMs = c.getFinishedTimeMs();
            r.ok = c.getStatus() == RequestStatus.OK && c.getFirstTokenTimeMs() != null;
            r.realisedUs = c.getQueueWaitUs() + c.getTierLoadUs() + c.getPrefillUs();
            long cached = 0;
            for (TierTokens t : c.getCachedTokens()) {
                cached += t.getTokens();
            }
            r.cachedTokens = cached;
            r.outputTokens = c.getOutputTokens();
            r.decodeUs = c.getDecodeUs();
            r.queueWaitUs = c.getQueueWaitUs();
            r.prefillUs = c.getPrefillUs();
            r.partition = in.partition;
            r.offset = in.offset;
            return r;
        }
    }

    /** {@code SnapshotControl} passes through unchanged. */
    public static final class Controls extends InboundSplit<SnapshotControl> {
        private static final long serialVersionUID = 1L;

        @Override
        SnapshotControl convert(Inbound in) {
            return in.control;
        }
    }
}
