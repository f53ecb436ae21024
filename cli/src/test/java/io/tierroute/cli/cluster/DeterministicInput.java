package io.tierroute.cli.cluster;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.CompletionLog;
import io.tierroute.schemas.avro.CostBreakdown;
import io.tierroute.schemas.avro.CostFeatures;
import io.tierroute.schemas.avro.EngineTelemetry;
import io.tierroute.schemas.avro.PredictionSource;
import io.tierroute.schemas.avro.RequestFeatures;
import io.tierroute.schemas.avro.RequestStatus;
import io.tierroute.schemas.avro.RoutingDecision;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.TierLinkSample;
import io.tierroute.schemas.avro.TierTokens;
import io.tierroute.schemas.avro.TierTransfer;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Seeded input for the fitting job's event-time cadence, one second of event time at a time: per
 * second, one telemetry sample of each of 8 workers and 100 requests (a decision and an OK completion
 * each, 10 ms apart) whose time to first token is a known linear function of the cost features
 * (plus 5 % noise), so the fits are accepted and the snapshots carry real values. The streaming-jobs
 * module's test Workload is not on cli's test classpath (no test-jar dependency), hence this one.
 */
final class DeterministicInput {

    static final int WORKERS = 8;
    static final int REQUESTS_PER_SECOND = 100;
    /** α of pEff, recompute², decode, decode², tier transfer, head of line, −affinity, −tools. */
    private static final double[] ALPHA = {1.0, 1e-4, 50, 0.001, 1.0, 100, 5000, 4000};
    private static final int Q_SLACK = 4;

    private final String scope;
    private final SplittableRandom rnd;
    private long second;
    private final long startMs;
    private long nextId;

    DeterministicInput(long seed, String scope, long startMs) {
        this.rnd = new SplittableRandom(seed);
        this.scope = scope;
        this.startMs = startMs;
    }

    /** The next second of event time: telemetry (stamped at the second's end), then its requests. */
    List<ProducerRecord<byte[], byte[]>> nextSecond(int requests) {
        List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
        long begin = startMs + second * 1000;
        second++;
        for (int w = 0; w < WORKERS; w++) {
            long tokens = 1000 + rnd.nextInt(20000);
            long steps = 20 + rnd.nextInt(40);
            EngineTelemetry t = EngineTelemetry.newBuilder().setWorker("w" + w).setScope(scope).setEngineType("sim")
                    .setHardwarePool("h100").setTimestampMs(begin + 1000).setIntervalMs(1000)
                    .setWaitingRequests(rnd.nextInt(5)).setRunningRequests(1 + rnd.nextInt(16)).setKvUsedBlocks(100)
                    .setKvCapacityBlocks(1000).setBlockSizeTokens(16)
                    .setLinks(List.of(TierLinkSample.newBuilder().setTier(Tier.CPU)
                            .setBytesMoved((long) (rnd.nextDouble() * 0.3 * 64e9)).setIntervalMs(1000).build()))
                    .setPrefillTokens(tokens).setPrefillBusyUs(Math.min(900_000, tokens * 40))
                    .setDecodeSteps(steps).setDecodeBusyUs(steps * 1000).build();
            out.add(new ProducerRecord<>(Topics.TELEMETRY, null, t.getTimestampMs(), bytes("w" + w),
                    Codecs.ENGINE_TELEMETRY.encode(t)));
        }
        for (int i = 0; i < requests; i++) {
            request(begin + 10L * i, out);
        }
        return out;
    }

    private void request(long t, List<ProducerRecord<byte[], byte[]>> out) {
        int isl;
        int hit;
        double kv;
        double quad;
        double sumD;
        double quadD;
        double tier;
        int q;
        boolean returning;
        double idle;
        double aff;
        double tools;
        double mean;
        do { // tiny requests (mean below 3 ms) would make the relative noise meaningless
            isl = 500 + rnd.nextInt(15500);
            hit = (int) (isl * (rnd.nextDouble() < 0.3 ? 0 : rnd.nextDouble()));
            kv = rnd.nextDouble() < 0.1 ? rnd.nextDouble() * 2000 : 0;
            quad = ((double) isl * isl - (double) hit * hit) / 2;
            sumD = rnd.nextDouble() < 0.7 ? rnd.nextDouble() * 400 : 0;
            quadD = sumD * rnd.nextDouble() * 40000 + sumD * sumD / 4;
            tier = rnd.nextDouble() < 0.5 ? rnd.nextDouble() * 20000 : 0;
            q = rnd.nextInt(21);
            returning = rnd.nextBoolean();
            idle = returning ? 0.5 + rnd.nextDouble() * 480 : 0;
            aff = returning ? Math.exp(-idle / 120.0) : 0;
            tools = rnd.nextDouble() < 0.5 ? rnd.nextDouble() : 0;
            double[] x = {isl - hit + kv, quad, sumD, quadD, tier, Math.pow(Math.max(0, q - Q_SLACK), 2), -aff, -tools};
            mean = 0;
            for (int j = 0; j < x.length; j++) {
                mean += ALPHA[j] * x[j];
            }
        } while (mean < 3000);
        long ttftUs = Math.round(Math.max(0, mean * (1 + 0.05 * rnd.nextGaussian())));
        boolean cacheHit = returning && rnd.nextDouble() < Math.exp(-idle / 120.0);
        String id = scope + "-r" + nextId++;
        String worker = "w" + rnd.nextInt(WORKERS);

        List<TierTransfer> transfers = tier > 0
                ? List.of(TierTransfer.newBuilder().setTier(Tier.CPU).setHitTokens(100).setTransferUs(tier).build())
                : List.of();
        CostFeatures f = CostFeatures.newBuilder().setPEffTokens(isl - hit).setRecomputeQuadratic(quad)
                .setInflightDecodeTokens(sumD).setInflightDecodeQuadratic(quadD).setKvOverflowTokens(kv)
                .setTierTransfers(transfers).setQueueLength(q).setAffinityDecay(aff)
                .setIdleSinceLastStepMs(returning ? Long.valueOf(Math.round(idle * 1000)) : null)
                .setExpectedToolHitFraction(tools).build();
        CostBreakdown cost = CostBreakdown.newBuilder().setPrefillUs(0).setDecodeUs(0).setKvUs(0).setTierUs(0)
                .setHolUs(0).setWorkflowBonusUs(0).setToolsBonusUs(0).setTotalUs(0).build();
        RequestFeatures r = RequestFeatures.newBuilder().setIsl(isl).setModel("m" + rnd.nextInt(3)).setLora(null)
                .setWorkflowId(null).setStepIndex(rnd.nextInt(5)).setExpectedTool(null).setMaxTokens(1024)
                .setOutputHint(null).setPrefixGroupId(rnd.nextInt(16)).setPreviousStepOutputTokens(50 + rnd.nextInt(500))
                .setPredictedOutputTokens(256).setPredictionSource(PredictionSource.MAX_TOKENS_HALF).build();
        RoutingDecision d = RoutingDecision.newBuilder().setRequestId(id).setSelectorId("s1").setTimestampMs(t)
                .setScope(scope).setSnapshotVersion(0).setChosenWorker(worker).setCandidateCount(WORKERS)
                .setExplored(false).setCost(cost).setFeatures(f).setRequest(r).build();

        int cached = returning ? (cacheHit ? Math.max(1, hit) : 0) : hit;
        if (returning) {
            // as a selector writes it: the previous worker, which the step returned to, held what it served
            d.getFeatures().setLastWorkerHeldTokens((long) cached);
        }
        List<TierTokens> tokens = cached > 0 ? List.of(TierTokens.newBuilder().setTier(Tier.HBM).setTokens(cached).build())
                : List.of();
        long prefill = ttftUs / 2;
        CompletionLog c = CompletionLog.newBuilder().setRequestId(id).setWorker(worker).setScope(scope).setModel("m")
                .setArrivalTimeMs(t).setDispatchedTimeMs(t).setFirstTokenTimeMs(t + ttftUs / 1000)
                .setFinishedTimeMs(t + 1000).setQueueWaitUs(ttftUs - prefill).setPrefillUs(prefill).setTierLoadUs(0)
                .setDecodeUs(500_000).setTtftUs(ttftUs).setInputTokens(isl).setOutputTokens(100 + rnd.nextInt(400))
                .setCachedTokens(tokens).setStatus(RequestStatus.OK).setStatusDetail(null).setWorkflowId(null)
                .setStepId(null).build();
        out.add(new ProducerRecord<>(Topics.DECISIONS, null, t, bytes(id), Codecs.ROUTING_DECISION.encode(d)));
        out.add(new ProducerRecord<>(Topics.COMPLETIONS, null, c.getFinishedTimeMs(), bytes(id),
                Codecs.COMPLETION_LOG.encode(c)));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
