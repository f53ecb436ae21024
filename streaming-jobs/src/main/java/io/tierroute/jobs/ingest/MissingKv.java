package io.tierroute.jobs.ingest;

import io.tierroute.schemas.avro.CostFeatures;
import io.tierroute.schemas.avro.TierTransfer;

/**
 * {@code m} of the admission wait: the KV a request misses on its worker, i.e. its KV overflow less the prefix it
 * already holds in HBM there (those tokens need no new HBM). The decision records the prompt tokens to compute
 * ({@code p_eff = ISL − hit}) and the hits of each non-HBM tier, so the HBM hit is what remains of the hit.
 */
public final class MissingKv {
    private MissingKv() {}

    /** {@code max(0, overflow − HBM-held)}, tokens; HBM-held = ISL − p_eff − Σ non-HBM hits (at least 0). */
    public static double tokens(CostFeatures f, int isl) {
        long nonHbmHits = 0;
        for (TierTransfer t : f.getTierTransfers()) {
            nonHbmHits += t.getHitTokens();
        }
        return tokens(f.getKvOverflowTokens(), isl, f.getPEffTokens(), nonHbmHits);
    }

    static double tokens(double kvOverflowTokens, int isl, int pEffTokens, long nonHbmHitTokens) {
        double hbmHeld = Math.max(0L, (long) isl - pEffTokens - nonHbmHitTokens);
        return Math.max(0.0, kvOverflowTokens - hbmHeld);
    }
}
