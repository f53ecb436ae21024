package io.tierroute.fitter.prior;

import io.tierroute.fitter.OutcomeCounts;

import io.tierroute.schemas.avro.EngineTelemetry;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Estimator 2: cold-start priors for α_p and α_d per (engine type, hardware pool) from engine
 * telemetry, usable before enough routing decisions are joined with completions for the latency
 * regression. See the module README, section 2.
 *
 * <ul>
 *   <li>α_p (µs/token) = Σw·prefillBusyUs / Σw·prefillTokens: a ratio of decayed sums, so every
 *       sample weighs by its tokens, whatever its interval.</li>
 *   <li>decode step time (µs/step) = Σw·decodeBusyUs / Σw·decodeSteps.</li>
 *   <li>α_d (µs per in-flight decode token) = Σw·decodeBusyUs / Σw·(decodeSteps·running): a step
 *       advances every running request by one token, so Σd̂ tokens in flight take Σd̂/b steps of the
 *       batch b, i.e. Σd̂·step/b µs: α_d = step time / mean running batch. Samples with running = 0
 *       (the batch drained before the gauge was read) count in the step time but not in α_d.</li>
 * </ul>
 *
 * Weights: per pool, exponential in event time with time constant τ: a newer sample multiplies the
 * pool's sums by e^(−Δ/τ); a sample older than the pool's newest (another worker lagging) enters with
 * weight e^(−(newest − t)/τ), so the result does not depend on the interleaving of workers.
 * Order is checked per worker (its intervals chain). Not thread-safe.
 */
public final class TelemetryPriors {

    private static final class Pool {
        long refTimeMs = Long.MIN_VALUE;
        final RatioSums prefill = new RatioSums();
        final RatioSums step = new RatioSums();
        final RatioSums alphaD = new RatioSums();
        double swSteps;
        long decodeWithoutRunning;

        /** Weight of a sample at t, advancing (and decaying) the reference time if t is newer. */
        double weightAt(long t, long tauMs) {
            if (refTimeMs == Long.MIN_VALUE) {
                refTimeMs = t;
                return 1.0;
            }
            if (t >= refTimeMs) {
                double f = decayFactor(t - refTimeMs, tauMs);
                prefill.decay(f);
                step.decay(f);
                alphaD.decay(f);
                swSteps *= f;
                refTimeMs = t;
                return 1.0;
            }
            return decayFactor(refTimeMs - t, tauMs);
        }

        static double decayFactor(long dtMs, long tauMs) {
            return tauMs == Long.MAX_VALUE ? 1.0 : Math.exp(-(double) dtMs / tauMs);
        }
    }

    private final PriorConfig config;
    private final Map<PoolKey, Pool> pools = new HashMap<>();
    private final Map<String, Long> lastByWorker = new HashMap<>();
    private final OutcomeCounts<PriorOutcome> outcomes = new OutcomeCounts<>(PriorOutcome.class);

    public TelemetryPriors(PriorConfig config) {
        this.config = config;
    }

    public PriorConfig config() {
        return config;
    }

    /** Offers one Avro telemetry sample (worker, engine type, hardware pool, counters, running gauge). */
    public PriorOutcome update(EngineTelemetry t) {
        String worker = t.getWorker() == null ? null : t.getWorker().toString();
        String engine = t.getEngineType() == null ? null : t.getEngineType().toString();
        String hw = t.getHardwarePool() == null ? null : t.getHardwarePool().toString();
        if (engine == null || engine.isEmpty() || hw == null || hw.isEmpty()) {
            return outcomes.tally(PriorOutcome.REJECTED_MISSING_KEY);
        }
        return update(worker, new PoolKey(engine, hw), t.getTimestampMs(), t.getIntervalMs(),
            t.getPrefillTokens(), t.getPrefillBusyUs(), t.getDecodeSteps(), t.getDecodeBusyUs(),
            t.getRunningRequests());
    }

    /**
     * Forgets the order check of the workers, and the pools, whose newest accepted sample is older than {@code
     * cutoffMs}: one entry per worker name or (engine type, hardware pool) ever seen would otherwise grow with every
     * pod a fleet replaces and every pool it retires, and a retired pool's sums, which decay only when its own samples
     * arrive, would keep it the busiest pool whose prior α_p is served. Returns how many workers were forgotten.
     */
    public int forgetSilentBefore(long cutoffMs) {
        pools.values().removeIf(p -> p.refTimeMs < cutoffMs);
        int before = lastByWorker.size();
        lastByWorker.values().removeIf(last -> last < cutoffMs);
        return before - lastByWorker.size();
    }

    /**
     * Offers one sample. Counters cover the {@code intervalMs} before {@code timestampMs};
     * {@code runningRequests} is the gauge at {@code timestampMs} (taken as the interval's batch).
     * Doubles so that a simulator's fractional counters and a NaN can be passed and checked.
     */
    public PriorOutcome update(String worker, PoolKey pool, long timestampMs, long intervalMs,
                               double prefillTokens, double prefillBusyUs, double decodeSteps,
                               double decodeBusyUs, double runningRequests) {
        PriorOutcome check = check(worker, pool, intervalMs, prefillTokens, prefillBusyUs, decodeSteps,
            decodeBusyUs, runningRequests);
        if (check != PriorOutcome.ACCEPTED) {
            return outcomes.tally(check);
        }
        Long last = lastByWorker.get(worker);
        if (last != null && timestampMs == last) {
            return outcomes.tally(PriorOutcome.REJECTED_DUPLICATE);
        }
        if (last != null && timestampMs < last) {
            return outcomes.tally(PriorOutcome.REJECTED_OUT_OF_ORDER);
        }
        lastByWorker.put(worker, timestampMs);
        Pool p = pools.computeIfAbsent(pool, k -> new Pool());
        double w = p.weightAt(timestampMs, config.tauMs());
        if (prefillTokens > 0) {
            p.prefill.add(w, prefillTokens, prefillBusyUs, timestampMs);
        }
        if (decodeSteps > 0) {
            p.step.add(w, decodeSteps, decodeBusyUs, timestampMs);
            if (runningRequests >= 1) {
                p.alphaD.add(w, decodeSteps * runningRequests, decodeBusyUs, timestampMs);
                p.swSteps += w * decodeSteps;
            } else {
                p.decodeWithoutRunning++;
            }
        }
        return outcomes.tally(PriorOutcome.ACCEPTED);
    }

    /** Stateless validation of one sample's values (order is checked separately, per worker). */
    PriorOutcome check(String worker, PoolKey pool, long intervalMs, double prefillTokens, double prefillBusyUs,
                       double decodeSteps, double decodeBusyUs, double runningRequests) {
        if (worker == null || worker.isEmpty() || pool == null) {
            return PriorOutcome.REJECTED_MISSING_KEY;
        }
        if (!Double.isFinite(prefillTokens) || !Double.isFinite(prefillBusyUs) || !Double.isFinite(decodeSteps)
                || !Double.isFinite(decodeBusyUs) || !Double.isFinite(runningRequests)) {
            return PriorOutcome.REJECTED_NON_FINITE;
        }
        if (intervalMs < 0 || prefillTokens < 0 || prefillBusyUs < 0 || decodeSteps < 0 || decodeBusyUs < 0
                || runningRequests < 0) {
            return PriorOutcome.REJECTED_NEGATIVE;
        }
        if (intervalMs == 0) {
            return PriorOutcome.REJECTED_ZERO_INTERVAL;
        }
        double maxBusyUs = intervalMs * 1000.0 * (1 + config.busySlack());
        if ((prefillTokens > 0) != (prefillBusyUs > 0) || (decodeSteps > 0) != (decodeBusyUs > 0)
                || prefillBusyUs > maxBusyUs || decodeBusyUs > maxBusyUs) {
            return PriorOutcome.REJECTED_INCONSISTENT;
        }
        // No engine prefills more than a billion tokens or runs more than a million steps per second
        // (and none holds a million running requests): such counters are corrupt, and would overflow
        // the sums.
        double seconds = intervalMs / 1000.0;
        if (prefillTokens > MAX_PREFILL_TOKENS_PER_S * seconds || decodeSteps > MAX_DECODE_STEPS_PER_S * seconds
                || runningRequests > MAX_RUNNING) {
            return PriorOutcome.REJECTED_INCONSISTENT;
        }
        return PriorOutcome.ACCEPTED;
    }

    static final double MAX_PREFILL_TOKENS_PER_S = 1e9;
    static final double MAX_DECODE_STEPS_PER_S = 1e6;
    static final double MAX_RUNNING = 1e6;

    /** How many samples ended with the given outcome. */
    public long count(PriorOutcome outcome) {
        return outcomes.count(outcome);
    }

    public Set<PoolKey> pools() {
        return Collections.unmodifiableSet(pools.keySet());
    }

    /** The priors of one pool; empty if it never had an accepted sample. */
    public Optional<PoolPrior> prior(PoolKey pool) {
        Pool p = pools.get(pool);
        if (p == null) {
            return Optional.empty();
        }
        return Optional.of(new PoolPrior(pool,
            p.prefill.hasValue() ? Optional.of(p.prefill.estimate()) : Optional.empty(),
            p.step.hasValue() ? Optional.of(p.step.estimate()) : Optional.empty(),
            p.alphaD.hasValue() ? Optional.of(p.alphaD.estimate()) : Optional.empty(),
            p.alphaD.hasValue() && p.swSteps > 0 ? p.alphaD.weightedSumX() / p.swSteps : Double.NaN,
            p.prefill.effectiveSamples(),
            p.step.effectiveSamples(),
            p.decodeWithoutRunning));
    }
}
