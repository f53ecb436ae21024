package io.tierroute.fitter.prior;

import io.tierroute.fitter.Estimate;
import java.util.Optional;

/**
 * The cold-start priors of one (engine type, hardware pool).
 *
 * @param alphaP            α_p prior, µs per prefill token (Σw·prefillBusyUs / Σw·prefillTokens)
 * @param decodeStepUs      mean decode step time, µs per step (Σw·decodeBusyUs / Σw·decodeSteps)
 * @param alphaD            α_d prior, µs per in-flight decode token (Σw·decodeBusyUs / Σw·decodeSteps·running)
 * @param meanRunningBatch  step-weighted mean running batch of the samples behind α_d (NaN without any)
 * @param prefillEffectiveSamples n_eff = (Σw)²/Σw² of the prefill samples
 * @param decodeEffectiveSamples  n_eff of the decode samples (step time)
 * @param decodeWithoutRunning    accepted samples with decode steps but running = 0 (in the step time, not in α_d)
 */
public record PoolPrior(
        PoolKey pool,
        Optional<Estimate> alphaP,
        Optional<Estimate> decodeStepUs,
        Optional<Estimate> alphaD,
        double meanRunningBatch,
        double prefillEffectiveSamples,
        double decodeEffectiveSamples,
        long decodeWithoutRunning) {

    /** Prefill throughput 10⁶/α_p, tokens/s (empty without prefill samples). */
    public Optional<Double> prefillTokensPerSecond() {
        return alphaP.map(e -> 1e6 / e.value());
    }
}
