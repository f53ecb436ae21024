package io.tierroute.fitter.prior;

/** (engine type, hardware pool): the key the cold-start priors are kept per. */
public record PoolKey(String engineType, String hardwarePool) {
    public PoolKey {
        if (engineType == null || engineType.isEmpty() || hardwarePool == null || hardwarePool.isEmpty()) {
            throw new IllegalArgumentException("engineType and hardwarePool must be non-empty: "
                + engineType + ", " + hardwarePool);
        }
    }
}
