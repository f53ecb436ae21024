package io.tierroute.sim.live;

import io.tierroute.schemas.avro.CompletionLog;
import io.tierroute.schemas.avro.EngineTelemetry;
import io.tierroute.schemas.avro.RequestStatus;
import io.tierroute.schemas.avro.TierLinkSample;
import io.tierroute.schemas.avro.TierTokens;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.engine.EngineConfig;
import io.tierroute.sim.policy.Completion;
import io.tierroute.sim.policy.WorkerTelemetry;

import java.util.ArrayList;
import java.util.List;

/**
 * The Avro records the live fleet's simulated engines publish, built from what the simulator reports: a worker's
 * telemetry sample and a finished request's completion log. Instants are wall-clock epoch ms given by the caller (the
 * pacing maps virtual to wall time); durations inside the records are virtual, i.e. what the simulated engines would
 * measure. Stateless.
 */
final class EngineRecords {

    private EngineRecords() {
    }

    /** Worker {@code t.worker()}'s telemetry sample, stamped {@code timestampMs}. */
    static EngineTelemetry telemetry(WorkerTelemetry t, EngineConfig cfg, String scope, long timestampMs) {
        long intervalMs = Math.max(1, t.intervalMicros() / 1000);
        List<TierLinkSample> links = new ArrayList<>();
        if (cfg.hasCpuTier()) {
            links.add(FleetPublisher.link(io.tierroute.schemas.avro.Tier.CPU,
                    Math.max(0, t.tierBytesMoved()[Tier.CPU.ordinal()]), intervalMs));
        }
        if (cfg.hasNvmeTier()) {
            links.add(FleetPublisher.link(io.tierroute.schemas.avro.Tier.NVME,
                    Math.max(0, t.tierBytesMoved()[Tier.NVME.ordinal()]), intervalMs));
        }
        return EngineTelemetry.newBuilder().setWorker(FleetPublisher.worker(t.worker())).setScope(scope)
                .setEngineType("fleet-sim").setHardwarePool("sim").setTimestampMs(timestampMs)
                .setIntervalMs(intervalMs).setWaitingRequests(t.waiting()).setRunningRequests(t.running())
                .setKvUsedBlocks((int) Math.round(t.kvUsage() * t.hbmCapacityBlocks()))
                .setKvCapacityBlocks((int) t.hbmCapacityBlocks()).setBlockSizeTokens(cfg.blockSize()).setLinks(links)
                .setPrefillTokens(t.prefillTokens()).setPrefillBusyUs(t.prefillBusyMicros())
                .setDecodeSteps(t.decodeSteps()).setDecodeBusyUs(t.decodeBusyMicros()).build();
    }

    /**
     * The completion log of request {@code requestId}, finished at {@code finishedEpochMs}: when {@code ok} (the
     * engine's record {@code c} exists and it had a first token), OK with the engine's realised phases; FAILED otherwise.
     */
    static CompletionLog completion(String requestId, InFlightRequests.InFlight f, Completion c, boolean ok,
                                    int outputTokens, long finishedEpochMs, String scope, String model) {
        List<TierTokens> cachedTokens = new ArrayList<>();
        long cachedSum = 0;
        for (int t = 0; t < Tier.COUNT; t++) {
            int tokens = (int) Math.min(f.cachedPerTier[t], Math.max(0, f.isl - 1 - cachedSum));
            if (tokens > 0) {
                cachedTokens.add(TierTokens.newBuilder().setTier(io.tierroute.schemas.avro.Tier.valueOf(Tier.ofOrdinal(t).name()))
                        .setTokens(tokens).build());
                cachedSum += tokens;
            }
        }
        // Realised phases as the engine measured them (virtual µs): queue wait + tier load + prefill = TTFT.
        return CompletionLog.newBuilder().setRequestId(requestId).setWorker(FleetPublisher.worker(f.worker))
                .setScope(scope).setModel(model).setArrivalTimeMs(f.arrivalEpochMs)
                .setDispatchedTimeMs(f.dispatchedEpochMs).setFirstTokenTimeMs(ok ? f.firstTokenEpochMs : null)
                .setFinishedTimeMs(finishedEpochMs).setQueueWaitUs(ok ? c.engineQueueWaitMicros() : 0)
                .setPrefillUs(ok ? c.prefillMicros() : 0).setTierLoadUs(ok ? c.tierLoadMicros() : 0)
                .setDecodeUs(ok ? c.decodeMicros() : 0).setTtftUs(ok ? c.engineTtftMicros() : null).setInputTokens(f.isl)
                .setOutputTokens(outputTokens).setCachedTokens(cachedTokens)
                .setStatus(ok ? RequestStatus.OK : RequestStatus.FAILED)
                .setStatusDetail(ok ? null : "the prompt does not fit the worker's KV cache")
                .setWorkflowId(f.workflow).setStepId(f.step).build();
    }
}
