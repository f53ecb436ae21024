package io.tierroute.fitter.bandwidth;

import java.util.Objects;

/** One link: a worker and one of its non-HBM tiers (the Avro Tier symbol, e.g. "CPU"). */
public record LinkKey(String worker, String tier) {
    public LinkKey {
        Objects.requireNonNull(worker, "worker");
        Objects.requireNonNull(tier, "tier");
    }
}
