package io.tierroute.jobs;

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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Generated decisions, completions and telemetry of one scope with KNOWN true parameters: the
 * realised time to first token is Σ α_j x_j (Q_slack 4) times (1 + noise·N(0,1)); a request that
 * returns to its workflow's previous worker after t seconds finds its prefix with probability
 * e^(−λt) (with {@link #withRoutedReturns}: a step whose previous worker held its context after t seconds, probability
 * e^(−λt), returns there more often than one whose context is gone). Regressors vary independently (as the fitter's own
 * accuracy tests draw them). Seeded.
 */
public final class Workload {
    static final double[] TRUTH = {1.0, 1e-4, 50, 0.001, 1.0, 100, 5000, 4000};
    static final String[] NAMES = {"alphaP", "alphaP2", "alphaD", "alphaD2", "alphaT", "alphaHo", "alphaWf", "alphaWf2"};
    static final int SLACK = 4;
    static final double LAMBDA = 1 / 120.0;
    public static final int WORKERS = 8;

    final String scope;
    private final SplittableRandom rnd;
    private final double noise;
    private long requestClockMs;
    private long telemetryClockMs;
    private long nextRequest;
    private long okRequests;
    /** Known admission wait (opt-in, {@link #withKvWait}); null: decisions as before (kvUsedTokens 0, never fitted). */
    private KvWaitTruth kvWait;
    private SplittableRandom kvRnd;
    private double overflowShare = 0.1;
    /** {@link #withRoutedReturns}: whether a step returns depends on its context still being held. */
    private boolean routedReturns;

    public Workload(long seed, String scope, long startMs, double noise) {
        this.rnd = new SplittableRandom(seed);
        this.scope = scope;
        this.noise = noise;
        this.requestClockMs = startMs;
        this.telemetryClockMs = startMs;
    }

    /**
     * The admission wait's ground truth: each decision gets KV_used, |A(w)|, d̂ and C_prefill; each completion the
     * decode time {@code d̂·(τ₀ + α·KV_used)·(1 + noise·N)} and, on top of the time to first token C_prefill
     * predicted, the wait {@code k·W} (W as the fitter's {@code AdmissionWait}). Half the requests overflow
     * (instead of a tenth), so enough of them miss KV. Its own random stream: the rest stays as seeded.
     */
    public Workload withKvWait(double tau0Us, double perKvTokenUs, double scale) {
        kvWait = new KvWaitTruth(tau0Us, perKvTokenUs, scale);
        kvRnd = new SplittableRandom(rnd.nextLong());
        overflowShare = 0.5;
        return this;
    }

    record KvWaitTruth(double tau0Us, double perKvTokenUs, double scale) {}

    /** Share of a step's returns to its previous worker when that worker still holds its context, and when not. */
    static final double RETURN_IF_HELD = 0.9;
    static final double RETURN_IF_GONE = 0.3;

    /**
     * Workflow steps as a cache-aware router routes them: three requests in four have a previous step, whose worker
     * still holds the context after t seconds with probability e^(−λt); the step returns there with probability
     * {@link #RETURN_IF_HELD} if it does, {@link #RETURN_IF_GONE} if not, and every such decision says what that
     * worker held ({@code lastWorkerHeldTokens}: nine tenths of the prompt, or a shared tenth). The returns alone
     * over-state the context's survival (at t = 1/λ, 64 % of returns find it against 37 % of all steps). Draws from
     * the seeded stream differently from the default: use it for a workload of its own.
     */
    public Workload withRoutedReturns() {
        routedReturns = true;
        return this;
    }

    /** Sets the event-time clocks: the next request is stamped {@code ms}, the next telemetry second ends at {@code ms}. */
    public void clock(long ms) {
        requestClockMs = ms;
        telemetryClockMs = ms - 1000;
    }

    /** Requests generated so far (each a decision and an OK completion). */
    long requests() {
        return okRequests;
    }

    private double sparse(double p, double hi) {
        return rnd.nextDouble() < p ? rnd.nextDouble() * hi : 0;
    }

    /** {@code n} requests: a decision and its completion each, in time order. */
    public List<ProducerRecord<byte[], byte[]>> requests(int n) {
        List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>(2 * n);
        for (int i = 0; i < n; i++) {
            RoutingDecision d;
            CompletionLog c;
            while (true) {
                int isl = 500 + rnd.nextInt(15500);
                double hitShare = rnd.nextDouble() < 0.3 ? 0 : rnd.nextDouble();
                int hit = (int) Math.floor(isl * hitShare);
                int pEff = isl - hit;
                double kv = rnd.nextDouble() < overflowShare ? rnd.nextDouble() * 2000 : 0;
                double quad = ((double) isl * isl - (double) hit * hit) / 2;
                double sumD = sparse(0.7, 400);
                double quadD = sumD * rnd.nextDouble() * 40000 + sumD * sumD / 4;
                double tier = sparse(0.5, 20000);
                int q = rnd.nextInt(21);
                boolean previous;
                boolean returning;
                double idle;
                boolean held = false;
                if (routedReturns) {
                    previous = rnd.nextDouble() < 0.75;
                    idle = previous ? 0.5 + rnd.nextDouble() * 480 : 0;
                    held = previous && rnd.nextDouble() < Math.exp(-LAMBDA * idle);
                    returning = previous && rnd.nextDouble() < (held ? RETURN_IF_HELD : RETURN_IF_GONE);
                } else {
                    returning = rnd.nextDouble() < 0.5;
                    previous = returning;
                    idle = returning ? 0.5 + rnd.nextDouble() * 480 : 0;
                }
                double aff = returning ? Math.exp(-idle / 120.0) : 0;
                double tools = sparse(0.5, 1);
                double[] x = {pEff + kv, quad, sumD, quadD, tier, Math.pow(Math.max(0, q - SLACK), 2), -aff, -tools};
                double mean = 0;
                for (int j = 0; j < x.length; j++) {
                    mean += TRUTH[j] * x[j];
                }
                if (mean < 3000) {
                    continue;
                }
                double y = Math.max(0, mean * (1 + noise * rnd.nextGaussian()));
                boolean cacheHit = routedReturns ? returning && held
                    : returning && rnd.nextDouble() < Math.exp(-LAMBDA * idle);
                String id = scope + "-r" + (nextRequest++);
                String worker = "w" + rnd.nextInt(WORKERS);
                long t = requestClockMs;
                requestClockMs += 10;
                d = decision(id, worker, t, pEff, kv, quad, sumD, quadD, tier, q, aff,
                    previous ? Long.valueOf(Math.round(idle * 1000)) : null, tools, isl);
                if (routedReturns && previous) {
                    d.getFeatures().setLastWorkerHeldTokens(Math.round(isl * (held ? 0.9 : 0.1)));
                }
                // A return finds its workflow's context (most of the prompt) or, evicted, only the shared system
                // prompt that other workflows keep (a tenth): that one must count as a miss (RequestJoinFunction).
                int cached = returning ? (int) Math.round(isl * (cacheHit ? 0.9 : 0.1)) : hit;
                if (!routedReturns && returning) {
                    // as a selector writes it: the previous worker, which the step returned to, held what it served
                    d.getFeatures().setLastWorkerHeldTokens((long) cached);
                }
                c = completion(id, worker, t, Math.round(y), isl, cached);
                if (kvWait != null) {
                    addKvWait(d, c, y, kv, Math.max(0, hit - (tier > 0 ? 100 : 0)), sumD);
                }
                break;
            }
            okRequests++;
            out.add(new ProducerRecord<>(Topics.DECISIONS, null, d.getTimestampMs(), key(d.getRequestId()),
                Codecs.ROUTING_DECISION.encode(d)));
            out.add(new ProducerRecord<>(Topics.COMPLETIONS, null, c.getFinishedTimeMs(), key(c.getRequestId()),
                Codecs.COMPLETION_LOG.encode(c)));
        }
        return out;
    }

    /** Sets the admission wait's fields of a generated pair from {@link #kvWait} (the TTFT predicted = {@code y}). */
    private void addKvWait(RoutingDecision d, CompletionLog c, double y, double overflow, int hbmHeld, double sumD) {
        long kvUsed = 50_000 + kvRnd.nextInt(200_000); // large against the overflow: W stays a small part of the TTFT
        int inFlight = 1 + kvRnd.nextInt(16);
        double dHat = 32 + kvRnd.nextInt(480);
        double missing = Math.max(0, overflow - hbmHeld);
        double step = kvWait.tau0Us() + kvWait.perKvTokenUs() * kvUsed;
        double w = missing > 0 && sumD > 0 ? Math.min(1, missing / kvUsed) * sumD / inFlight * step : 0;
        d.getFeatures().setKvUsedTokens(kvUsed);
        d.getFeatures().setInFlight(inFlight);
        d.getRequest().setPredictedOutputTokens(dHat);
        d.getCost().setPrefillUs(y);
        d.getCost().setQueueUs(0);
        long waited = Math.round(kvWait.scale() * w);
        c.setQueueWaitUs(c.getQueueWaitUs() + waited);
        c.setTtftUs(c.getTtftUs() + waited);
        c.setDecodeUs(Math.max(0, Math.round(dHat * step * (1 + noise * kvRnd.nextGaussian()))));
    }

    RoutingDecision decision(String id, String worker, long t, int pEff, double kv, double quad, double sumD,
            double quadD, double tier, int q, double aff, Long idleMs, double tools, int isl) {
        List<TierTransfer> transfers = new ArrayList<>();
        if (tier > 0) {
            transfers.add(TierTransfer.newBuilder().setTier(Tier.CPU).setHitTokens(100).setTransferUs(tier).build());
        }
        CostFeatures f = CostFeatures.newBuilder().setPEffTokens(pEff).setRecomputeQuadratic(quad)
            .setInflightDecodeTokens(sumD).setInflightDecodeQuadratic(quadD).setKvOverflowTokens(kv)
            .setTierTransfers(transfers).setQueueLength(q).setAffinityDecay(aff).setIdleSinceLastStepMs(idleMs)
            .setExpectedToolHitFraction(tools).build();
        CostBreakdown cost = CostBreakdown.newBuilder().setPrefillUs(0).setDecodeUs(0).setKvUs(0).setTierUs(0)
            .setHolUs(0).setWorkflowBonusUs(0).setToolsBonusUs(0).setTotalUs(0).build();
        int out = 50 + rnd.nextInt(500);
        RequestFeatures r = RequestFeatures.newBuilder().setIsl(isl).setModel("m" + rnd.nextInt(3)).setLora(null)
            .setWorkflowId(null).setStepIndex(rnd.nextInt(5)).setExpectedTool(null).setMaxTokens(1024)
            .setOutputHint(null).setPrefixGroupId(rnd.nextInt(16)).setPreviousStepOutputTokens(out)
            .setPredictedOutputTokens(256).setPredictionSource(PredictionSource.MAX_TOKENS_HALF).build();
        return RoutingDecision.newBuilder().setRequestId(id).setSelectorId("s1").setTimestampMs(t).setScope(scope)
            .setSnapshotVersion(0).setChosenWorker(worker).setCandidateCount(WORKERS).setExplored(false)
            .setCost(cost).setFeatures(f).setRequest(r).build();
    }

    CompletionLog completion(String id, String worker, long t, long realisedUs, int isl, int cached) {
        long prefill = realisedUs / 2;
        List<TierTokens> tokens = new ArrayList<>();
        if (cached > 0) {
            tokens.add(TierTokens.newBuilder().setTier(Tier.HBM).setTokens(cached).build());
        }
        return CompletionLog.newBuilder().setRequestId(id).setWorker(worker).setScope(scope).setModel("m")
            .setArrivalTimeMs(t).setDispatchedTimeMs(t).setFirstTokenTimeMs(t + realisedUs / 1000)
            .setFinishedTimeMs(t + 1000).setQueueWaitUs(realisedUs - prefill).setPrefillUs(prefill).setTierLoadUs(0)
            .setDecodeUs(500_000).setTtftUs(realisedUs).setInputTokens(isl).setOutputTokens(100 + rnd.nextInt(400))
            .setCachedTokens(tokens).setStatus(RequestStatus.OK).setStatusDetail(null).setWorkflowId(null)
            .setStepId(null).build();
    }

    /** {@code seconds} one-second telemetry samples of every worker (prefill 60 µs/token, a busy CPU link). */
    public List<ProducerRecord<byte[], byte[]>> telemetry(int seconds) {
        List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
        for (int s = 0; s < seconds; s++) {
            telemetryClockMs += 1000;
            for (int w = 0; w < WORKERS; w++) {
                long tokens = 1000 + rnd.nextInt(20000);
                long steps = 20 + rnd.nextInt(40);
                EngineTelemetry t = EngineTelemetry.newBuilder().setWorker("w" + w).setScope(scope)
                    .setEngineType("sim").setHardwarePool("h100").setTimestampMs(telemetryClockMs).setIntervalMs(1000)
                    .setWaitingRequests(rnd.nextInt(5)).setRunningRequests(1 + rnd.nextInt(16)).setKvUsedBlocks(100)
                    .setKvCapacityBlocks(1000).setBlockSizeTokens(16)
                    .setLinks(List.of(TierLinkSample.newBuilder().setTier(Tier.CPU)
                        // up to 0.9 of a 64 GB/s link: it tops out near its speed, a peak that speaks for it
                        .setBytesMoved((long) (rnd.nextDouble() * 0.9 * 64e9)).setIntervalMs(1000).build()))
                    .setPrefillTokens(tokens).setPrefillBusyUs(Math.min(900_000, tokens * 40))
                    .setDecodeSteps(steps).setDecodeBusyUs(steps * 1000).build();
                out.add(new ProducerRecord<>(Topics.TELEMETRY, null, t.getTimestampMs(), key("w" + w),
                    Codecs.ENGINE_TELEMETRY.encode(t)));
            }
        }
        return out;
    }

    static byte[] key(CharSequence s) {
        return s.toString().getBytes(StandardCharsets.UTF_8);
    }
}
