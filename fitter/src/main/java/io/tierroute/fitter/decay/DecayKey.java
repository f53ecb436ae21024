package io.tierroute.fitter.decay;

import java.util.Objects;

/** What λ is fitted per: a snapshot scope and a cache-pressure bucket (see {@link PressureBuckets}). */
public record DecayKey(String scope, int pressureBucket) {
    public DecayKey {
        Objects.requireNonNull(scope, "scope");
        if (pressureBucket < 0) {
            throw new IllegalArgumentException("pressureBucket must be >= 0");
        }
    }
}
