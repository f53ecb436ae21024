package io.tierroute.jobs.fit;

import io.tierroute.fitter.Estimate;
import io.tierroute.fitter.bandwidth.LinkKey;
import io.tierroute.fitter.bandwidth.RhoConfig;
import io.tierroute.fitter.bandwidth.RhoOutcome;
import io.tierroute.fitter.bandwidth.RhoTracker;
import io.tierroute.fitter.decay.DecayConfig;
import io.tierroute.fitter.decay.DecayFit;
import io.tierroute.fitter.decay.DecayFitter;
import io.tierroute.fitter.decay.DecayKey;
import io.tierroute.fitter.decay.DecayObservation;
import io.tierroute.fitter.decay.DecayOutcome;
import io.tierroute.fitter.kvwait.KvWaitRow;
import io.tierroute.fitter.prior.PoolKey;
import io.tierroute.fitter.prior.PoolPrior;
import io.tierroute.fitter.prior.PriorConfig;
import io.tierroute.fitter.prior.PriorOutcome;
import io.tierroute.fitter.prior.TelemetryPriors;
import io.tierroute.fitter.regression.Coefficient;
import io.tierroute.fitter.regression.LatencyFit;
import io.tierroute.fitter.regression.LatencyRegression;
import io.tierroute.fitter.regression.RegressionConfig;
import io.tierroute.fitter.regression.UpdateOutcome;
import io.tierroute.fitter.snapshot.FitResults;
import io.tierroute.fitter.snapshot.FittedValues;
import io.tierroute.fitter.snapshot.SnapshotAssembler;
import io.tierroute.jobs.ingest.TelemetrySample;
import io.tierroute.jobs.join.JoinedRow;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.TierBandwidth;
import io.tierroute.schemas.avro.WorkerTierRho;
import io.tierroute.schemas.snapshot.SnapshotParameter;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fitter's estimators for one scope, in memory (single-threaded: one instance per scope in the
 * keyed operator). Not checkpointed itself: {@link ScopeFitFunction} keeps the bounded recent inputs
 * in Flink state and rebuilds an instance from them after a restore.
 */
final class ScopeEstimators {
    private static final Logger LOG = LoggerFactory.getLogger(ScopeEstimators.class);
    private final String scope;
    private final LatencyRegression regression;
    private final TelemetryPriors priors = new TelemetryPriors(PriorConfig.defaults());
    /** Whether the WARN that the prior's α_p is out of bounds was said since it last was within them. */
    private boolean priorOutOfBoundsSaid;
    private static final RhoConfig RHO_CONFIG = RhoConfig.defaults();
    /** A link without telemetry for this long (its peak window) has left the fleet. */
    static final long LINK_SILENCE_MS = RHO_CONFIG.peakWindowMs();
    /**
     * The most (worker, tier) links a scope fits ρ for: 30,000, 10,000 workers with three slower tiers. Beyond them the
     * least recently heard from are dropped ({@link #capLinks}), counted.
     */
    static final int MAX_LINKS = 30_000;
    private final RhoTracker rho = new RhoTracker(RHO_CONFIG);
    /** λ forgets over the regression's horizon too (in λ observations): it follows the fleet's cache pressure. */
    private final DecayFitter decay;
    /** BW_t per tier name used to turn bytes into utilisation: the active snapshot's, else the defaults. */
    private final Map<String, Double> bandwidths = new HashMap<>();
    /** The admission wait's rows of the newest joined rows (the replay sample's bound): refitted at each snapshot. */
    private final KvWaitSample kvWait;
    private long telemetrySamples;
    private long rows;
    private long decayObservations;
    /** Where refusals of live input are counted; null while a restore's replay feeds rows counted before. */
    private EstimatorRefusals refusals;
    /** The operator's clock ({@link ScopeFitFunction}) at the last input or at the rebuild: for idle eviction. */
    private long lastInputMs;

    /**
     * The regression's configuration: the fitter's defaults with the job's forgetting horizon and refit
     * interval. Between refits the reference fit (which weights each new row) and Q_slack are fixed; a
     * refit solves 17 NNLS problems, which at the fitter's default of every 16 rows was about half of the
     * regression's cost per row. {@code fit()} at each snapshot always solves the current sums.
     * <p>With a free intercept, as the simulator's warm-up fit ({@code TierrouteFitting}) that the benchmark
     * measures: the engine's fixed per-step overhead (16.5 ms a prefill step on the simulated engines) is paid on
     * every worker alike, so it is no price of a choice. Without it, α_p absorbed that overhead spread over the
     * prompt's tokens, and where prompts are short and TTFT is mostly the fixed step (chat) the fit explained less
     * than the mean did: R² 0, every snapshot rejected.
     */
    static RegressionConfig regressionConfig(int regressionHorizonRows, int refitRows) {
        RegressionConfig c = RegressionConfig.defaults().withTrackingHorizon(regressionHorizonRows).withIntercept(true);
        return new RegressionConfig(c.forgetting(), c.huberK(), c.rejectK(), c.intercept(), c.maxQSlack(), refitRows,
            c.madWindow(), c.burnIn(), c.varianceModel(), c.ridge(), c.eigenFloor());
    }

    ScopeEstimators(String scope, int regressionHorizonRows, int refitRows, int sampleRows) {
        this.scope = scope;
        this.kvWait = new KvWaitSample(sampleRows);
        this.regression = new LatencyRegression(regressionConfig(regressionHorizonRows, refitRows));
        this.decay = new DecayFitter(DecayConfig.defaults().withTrackingHorizon(regressionHorizonRows));
        SnapshotAssembler.DEFAULT_BANDWIDTHS.forEach((t, v) -> bandwidths.put(t.name(), v));
    }

    /**
     * Uses the active snapshot's BW_t for the utilisation of later samples; true if any value changed. The ρ of a
     * tier whose BW_t changed is put on the new speed ({@link RhoTracker#measureTierAgainst}; a link seen faster
     * stays on its own rate).
     */
    boolean useBandwidths(ParameterSnapshot active) {
        boolean changed = false;
        if (active != null) {
            for (TierBandwidth b : active.getBandwidths()) {
                changed |= useBandwidth(b.getTier().name(), b.getBytesPerSecond().getValue());
            }
        }
        return changed;
    }

    /** Sets one tier's BW_t in use, rescaling its links' ρ from the old one; true if it changed. */
    private boolean useBandwidth(String tier, double bytesPerSecond) {
        Double old = bandwidths.put(tier, bytesPerSecond);
        if (old != null && old != bytesPerSecond && old > 0 && bytesPerSecond > 0) {
            rho.measureTierAgainst(tier, bytesPerSecond);
        }
        return old == null || old != bytesPerSecond;
    }

    /**
     * Puts the gated {@code candidate}'s ρ on the BW_t it carries (the fitted one, or the active one the gate held).
     * Each ρ was measured against the BW_t in use (the last accepted one, or the default), while the selector reads a
     * snapshot's ρ against that snapshot's own BW_t: a candidate with
     * a newly fitted BW_t (64 → 16 GB/s at the first fit) published a link at 80 % as 20 %, under ρ_thr, and C_tier
     * priced it about 4× too cheap until the EWMA had forgotten the old speed. Scaled by in-use / carried, clamped to
     * [0, 1], the standard error alike.
     */
    void rhoOnTheCarriedBandwidths(ParameterSnapshot candidate) {
        Map<String, Double> factor = new HashMap<>();
        for (TierBandwidth b : candidate.getBandwidths()) {
            Double inUse = bandwidths.get(b.getTier().name());
            double carried = b.getBytesPerSecond().getValue();
            if (inUse != null && inUse > 0 && carried > 0 && inUse != carried) {
                factor.put(b.getTier().name(), inUse / carried);
            }
        }
        if (factor.isEmpty()) {
            return;
        }
        for (WorkerTierRho r : candidate.getRho()) {
            Double f = factor.get(r.getTier().name());
            if (f != null && r.getReferenceBytesPerSecond() == null) { // a link on its own reference says so itself
                r.setRho(FittedValues.rhoScaled(r.getRho(), f));
            }
        }
    }

    /** The BW_t in use, per tier name (a copy, in a fixed order). */
    BandwidthChange bandwidths(long atTelemetry) {
        return BandwidthChange.of(atTelemetry, bandwidths);
    }

    /** Replaces the BW_t in use (replaying a {@link BandwidthChange}). */
    void useBandwidths(BandwidthChange change) {
        java.util.Set<String> named = new java.util.HashSet<>();
        for (int i = 0; i < change.tiers.length; i++) {
            useBandwidth(change.tiers[i], change.bytesPerSecond[i]); // rescaled from the speed in use, as live
            named.add(change.tiers[i]);
        }
        bandwidths.keySet().retainAll(named); // the change replaces the whole map
    }

    /** From now on, counts what the ρ tracker, the λ fit and the admission wait's sample refuse in {@code counters}. */
    void countRefusalsIn(EstimatorRefusals counters) {
        this.refusals = counters;
    }

    long lastInputMs() {
        return lastInputMs;
    }

    void lastInputMs(long clockMs) {
        this.lastInputMs = clockMs;
    }

    boolean hasData() {
        return telemetrySamples > 0 || rows > 0;
    }

    /** Offers a telemetry sample to the priors and every link to the ρ tracker; true if the priors accepted it. */
    boolean add(TelemetrySample s) {
        telemetrySamples++;
        PriorOutcome p = priors.update(s.worker, new PoolKey(s.engineType, s.hardwarePool), s.timestampMs,
            s.intervalMs, s.prefillTokens, s.prefillBusyUs, s.decodeSteps, s.decodeBusyUs, s.runningRequests);
        for (int i = 0; i < s.linkTiers.length; i++) {
            Double bw = bandwidths.get(s.linkTiers[i]);
            if (bw != null) {
                RhoOutcome o = rho.update(new LinkKey(s.worker, s.linkTiers[i]), s.timestampMs, s.linkIntervalMs[i],
                    s.linkBytes[i], bw);
                if (refusals != null && p == PriorOutcome.ACCEPTED && !o.accepted()) { // a row refused whole is counted once, by the caller
                    refusals.rhoLinkSamples.inc();
                }
            }
        }
        return p == PriorOutcome.ACCEPTED;
    }

    /**
     * Drops the ρ links (and the priors' per-worker order check and pools) with no telemetry in the {@link
     * #LINK_SILENCE_MS} before {@code eventTimeMs}, the job's event time: their workers left the fleet. Returns the
     * links dropped; none while the job has no event time yet ({@code Long.MIN_VALUE}) or once its input ended
     * ({@code Long.MAX_VALUE}, a drain's last watermark: every link would look silent).
     */
    List<LinkKey> retireSilentLinks(long eventTimeMs) {
        if (eventTimeMs == Long.MIN_VALUE || eventTimeMs == Long.MAX_VALUE) {
            return List.of();
        }
        priors.forgetSilentBefore(eventTimeMs - LINK_SILENCE_MS); // the per-worker order check and pools, likewise
        return rho.retireSilentBefore(eventTimeMs - LINK_SILENCE_MS);
    }

    /**
     * Drops the links least recently heard from beyond {@link #MAX_LINKS}: the event time that retires silent links
     * stalls with a lagging input partition, and workers that come and go meanwhile (a pod name per restart) would
     * otherwise pile up in memory and in every snapshot's ρ. The priors keep their pools and per-worker order checks
     * (one timestamp a worker). Returns the links dropped.
     */
    List<LinkKey> capLinks() {
        return rho.retireOldestBeyond(MAX_LINKS);
    }

    /**
     * Offers a joined row to the regression and, if it accepts it, to the admission wait's sample and (if it says
     * something about λ) to the decay fit. The regression refuses only impossible rows (not finite, negative, beyond
     * its sanity caps: a queue wait of 1.7e15 µs is a missing timestamp taken as the epoch), and such a row is no truer
     * for the other estimators: one drove k to 0. A row whose α_p column is unknown (a v1 decision's, or one that cut a
     * congested tier off) skips the regression, counted, and is refused by the same checks of its other figures.
     * False = refused, which the caller counts.
     */
    boolean add(JoinedRow r) {
        rows++;
        if (!r.regressors.alphaPColumnKnown()) {
            // an older schema's (no queued prefill) or a cut-off tier's: no latency row, but its other rows are as good
            if (r.checkableLatency().check() != UpdateOutcome.ACCEPTED) {
                return false;
            }
            if (refusals != null) {
                (r.regressors.cutOff() ? refusals.latencyRowsCutOff : refusals.latencyRowsWithoutQueuedPrefill).inc();
            }
        } else if (regression.update(r.latency()) != UpdateOutcome.ACCEPTED) {
            return false;
        }
        KvWaitRow k = r.kvWait();
        kvWait.add(k);
        if (refusals != null && k != null && !k.usable()) {
            refusals.kvWaitRows.inc();
        } else if (refusals != null && k != null && k.decodeTimePastTauZerosBound()) {
            refusals.kvWaitDecodeRowsPastBound.inc(); // a hint far below the output: no decode step, still a row for k
        }
        DecayObservation o = r.decay();
        if (o != null) {
            decayObservations++;
            if (decay.add(new DecayKey(scope, 0), o) != DecayOutcome.ACCEPTED && refusals != null) {
                refusals.decayObservations.inc();
            }
        }
        return true;
    }

    /**
     * What goes into the next snapshot. An estimator below {@code minFitSamples} contributes nothing
     * (its values are carried: "not fitted yet") rather than a value the gate would reject; until the
     * regression has enough rows, α_p comes from the telemetry priors of the scope's busiest pool (α_d stays carried).
     * A tier's BW_t enters only with {@code minBandwidthSamples} link samples. The admission wait's τ₀, α and k
     * are fitted on the last {@code sampleRows} joined rows that carry its fields, once there are
     * {@code minFitSamples} of them (the fitter's own minimums then decide which of the three it gives).
     */
    FitResults fits(long minFitSamples, long minBandwidthSamples, QuantileForestModel newForest) {
        LatencyFit latency = regression.samples() >= minFitSamples ? regression.fit() : priorFit(minFitSamples);
        DecayFit lambda = null;
        if (decayObservations > 0) {
            Optional<DecayFit> f = decay.fitScope(scope);
            if (f.isPresent() && f.get().lambda().samples() >= minFitSamples) {
                lambda = f.get();
            }
        }
        Map<LinkKey, Estimate> rhos = new HashMap<>();
        Map<LinkKey, Double> ownReferences = new HashMap<>();
        for (LinkKey link : rho.links()) {
            rho.rho(link).ifPresent(e -> rhos.put(link, e));
            rho.ownReference(link).ifPresent(r -> ownReferences.put(link, r));
        }
        Map<Tier, Estimate> bws = new EnumMap<>(Tier.class);
        for (Tier t : Tier.values()) {
            if (t != Tier.HBM) {
                rho.tierPeak(t.name()).filter(e -> e.samples() >= minBandwidthSamples).ifPresent(e -> bws.put(t, e));
            }
        }
        FitResults fits = new FitResults(latency, rhos, bws, lambda, newForest).withRhoReferences(ownReferences);
        return kvWait.size() >= minFitSamples ? fits.withKvWait(kvWait.fit()) : fits;
    }

    private LatencyFit priorFit(long minFitSamples) {
        PoolPrior best = null;
        for (PoolKey pool : priors.pools()) {
            PoolPrior p = priors.prior(pool).orElse(null);
            if (p != null && (best == null || p.prefillEffectiveSamples() > best.prefillEffectiveSamples())) {
                best = p;
            }
        }
        if (best == null) {
            return null;
        }
        EnumMap<Coefficient, Estimate> c = new EnumMap<>(Coefficient.class);
        Estimate alphaP = best.alphaP().filter(e -> e.samples() >= minFitSamples).orElse(null);
        // Only within the gate's bounds: busy time over a prefillTokens that counts requests gave 159,291 µs/token,
        // which rejected every snapshot of a scope until the regression took over (for good without joined rows).
        // Said once while it lasts, since no gate reason names it then.
        boolean outOfBounds = alphaP != null && !SnapshotParameter.ALPHA_P.inBounds(alphaP.value());
        if (outOfBounds && !priorOutOfBoundsSaid) {
            LOG.warn("scope {}: the telemetry prior's α_p of pool {} is {} µs/token, outside its bounds {}: not served "
                + "(check the engines' prefillTokens and prefillBusyUs: tokens and µs over the interval); said again "
                + "after it comes back within them", scope, best.pool(), SnapshotParameter.format(alphaP.value()),
                SnapshotParameter.ALPHA_P.boundsText());
        }
        priorOutOfBoundsSaid = outOfBounds;
        if (alphaP != null && !outOfBounds) {
            c.put(Coefficient.ALPHA_P, alphaP);
        }
        // Not α_d: the prior's is the engine's decode time per generated token (step time / batch, the time to drain
        // the tokens in flight), thousands of µs; C_decode's α_d is what in-flight decode adds to a first token under
        // continuous batching, which the regression fits at 0–3 µs/token (default 50). Served, the prior priced
        // in-flight decode some 100× too high until the regression took over (fitter/README.md §2, "Limits").
        if (c.isEmpty()) {
            return null;
        }
        return new LatencyFit(c, null, 0, 0, 0, 0, 0, 0, 0, new double[0]);
    }
}
