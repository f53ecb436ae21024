package io.tierroute.selector.kafka;

import io.tierroute.schemas.avro.CostBreakdown;
import io.tierroute.schemas.avro.CostFeatures;
import io.tierroute.schemas.avro.PredictionSource;
import io.tierroute.schemas.avro.RequestFeatures;
import io.tierroute.schemas.avro.RoutingDecision;
import io.tierroute.schemas.avro.TierTransfer;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.scheduling.RouteDecision;
import io.tierroute.selector.scheduling.RouteRequest;

import java.util.ArrayList;
import java.util.List;

/** Builds the {@link RoutingDecision} Avro record of one admitted decision (on the producer thread). */
final class DecisionRecords {

    private DecisionRecords() {}

    /**
     * What a decision record reads of its request: a few fields, taken on the route thread so that a decision waiting
     * in the publisher's buffer (up to its whole capacity while the broker is unreachable) holds no prompt.
     */
    record RequestFields(String model, String lora, String workflowId, Integer stepIndex, String expectedTool,
                         int maxTokens, Integer outputHint) {

        static RequestFields of(RouteRequest r) {
            RouteRequest.AgentContext agent = r.agent();
            return new RequestFields(r.model(), r.lora(), agent == null ? null : agent.workflowId(),
                    agent == null ? null : agent.stepIndex(),
                    agent == null || agent.expectedNextTools().isEmpty() ? null : agent.expectedNextTools().get(0),
                    r.maxTokens(), r.expectedOutputTokens());
        }
    }

    static RoutingDecision build(String selectorId, String defaultModel, RequestFields request, RouteDecision d,
                                 int candidateCount, long prefixGroupId, long idleSinceLastStepMs,
                                 long lastWorkerHeldTokens, long timestampMs) {
        io.tierroute.selector.scheduling.CostBreakdown b = d.chosen();
        CostBreakdown cost = CostBreakdown.newBuilder()
                .setPrefillUs(b.prefillUs()).setDecodeUs(b.decodeUs()).setKvUs(b.kvUs()).setTierUs(b.tierUs())
                .setHolUs(b.headOfLineUs()).setWorkflowBonusUs(b.workflowBonusUs()).setToolsBonusUs(b.toolsBonusUs())
                .setTotalUs(b.totalUs()).setQueueUs(b.queueUs()).setHarmUs(b.harmUs())
                .setOwnDecodeUs(b.ownDecodeUs()).setKvOverflowHarmUs(b.kvOverflowHarmUs()).setKvWaitUs(b.kvWaitUs())
                .build();
        List<TierTransfer> transfers = new ArrayList<>(Tier.COUNT - 1);
        for (int t = Tier.HBM.ordinal() + 1; t < Tier.COUNT; t++) {
            long tokens = b.tierTokens()[t];
            if (tokens > 0 || b.tierTransferUs()[t] > 0) {
                transfers.add(new TierTransfer(io.tierroute.schemas.avro.Tier.valueOf(Tier.ofOrdinal(t).name()),
                        (int) Math.min(Integer.MAX_VALUE, tokens), b.tierTransferUs()[t]));
            }
        }
        CostFeatures features = CostFeatures.newBuilder()
                .setPEffTokens((int) Math.min(Integer.MAX_VALUE, b.pEffTokens()))
                .setRecomputeQuadratic(b.recomputeQuadratic())
                .setInflightDecodeTokens(b.inflightDecodeTokens())
                .setInflightDecodeQuadratic(b.inflightDecodeQuadratic())
                .setKvOverflowTokens(b.kvOverflowTokens())
                .setTierTransfers(transfers)
                .setQueueLength(b.queueLength())
                .setAffinityDecay(b.affinityDecay())
                .setIdleSinceLastStepMs(idleSinceLastStepMs >= 0 ? idleSinceLastStepMs : null)
                .setExpectedToolHitFraction(b.toolHitFraction())
                .setQueuedPrefillTokens(b.queuedPrefillTokens())
                .setInFlight(b.inFlight())
                .setKvUsedTokens(b.kvUsedTokens())
                .setOwnDecodeKvTokenSteps(b.ownDecodeKvTokenSteps())
                .setCutOffTier(b.cutOffTier() < 0 ? null
                        : io.tierroute.schemas.avro.Tier.valueOf(Tier.ofOrdinal(b.cutOffTier()).name()))
                .setLastWorkerHeldTokens(idleSinceLastStepMs >= 0 && lastWorkerHeldTokens >= 0 ? lastWorkerHeldTokens : null)
                .build();
        RequestFeatures req = RequestFeatures.newBuilder()
                .setIsl(d.inputTokens())
                .setModel(request.model() == null ? defaultModel : request.model())
                .setLora(request.lora())
                .setWorkflowId(request.workflowId())
                .setStepIndex(request.stepIndex())
                .setExpectedTool(request.expectedTool())
                .setMaxTokens(request.maxTokens())
                .setOutputHint(request.outputHint())
                .setPrefixGroupId(prefixGroupId)
                .setPreviousStepOutputTokens(d.previousStepOutputTokens())
                .setPredictedOutputTokens(d.predictedOutputTokens())
                .setPredictionSource(PredictionSource.valueOf(d.predictionSource().name()))
                .build();
        return RoutingDecision.newBuilder()
                .setRequestId(d.requestId())
                .setSelectorId(selectorId)
                .setTimestampMs(timestampMs)
                .setScope(d.scope())
                .setSnapshotVersion(d.snapshotVersion())
                .setChosenWorker(d.worker())
                .setCandidateCount(candidateCount)
                .setExplored(d.explored())
                .setSpread(d.spread())
                .setCost(cost)
                .setFeatures(features)
                .setRequest(req)
                .build();
    }
}
