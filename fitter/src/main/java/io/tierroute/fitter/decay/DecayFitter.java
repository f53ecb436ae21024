package io.tierroute.fitter.decay;

import io.tierroute.fitter.OutcomeCounts;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** λ per (scope, cache-pressure bucket): a small keyed map of {@link DecayAccumulator}s. Not thread-safe. */
public final class DecayFitter {
    private final DecayConfig config;
    private final Map<DecayKey, DecayAccumulator> accumulators = new HashMap<>();
    private final OutcomeCounts<DecayOutcome> outcomes = new OutcomeCounts<>(DecayOutcome.class);

    public DecayFitter(DecayConfig config) {
        this.config = config;
    }

    public DecayOutcome add(DecayKey key, DecayObservation observation) {
        DecayOutcome outcome = observation.check();
        if (outcome == DecayOutcome.ACCEPTED) {
            outcome = accumulators.computeIfAbsent(key, k -> new DecayAccumulator(config)).add(observation);
        }
        return outcomes.tally(outcome);
    }

    public long count(DecayOutcome outcome) {
        return outcomes.count(outcome);
    }

    public Set<DecayKey> keys() {
        return Collections.unmodifiableSet(accumulators.keySet());
    }

    public Optional<DecayFit> fit(DecayKey key) {
        DecayAccumulator a = accumulators.get(key);
        return a == null ? Optional.empty() : Optional.of(a.fit());
    }

    /** λ for a whole scope, pooling its pressure buckets. */
    public Optional<DecayFit> fitScope(String scope) {
        DecayAccumulator pooled = null;
        for (Map.Entry<DecayKey, DecayAccumulator> e : accumulators.entrySet()) {
            if (e.getKey().scope().equals(scope)) {
                if (pooled == null) {
                    pooled = new DecayAccumulator(config);
                }
                // Each bucket forgets over its own observations: a bucket that stopped receiving any keeps its weight
                // here (the job fits bucket 0 only).
                pooled.merge(e.getValue());
            }
        }
        return pooled == null ? Optional.empty() : Optional.of(pooled.fit());
    }
}
