package io.tierroute.selector.protocol;

/**
 * A storage tier that can hold KV blocks, fastest first. The ordinal is the tier's rank: the index
 * reports cumulative matched depths in this order, and the cost model charges transfer time for
 * every tier slower than {@link #HBM}.
 */
public enum Tier {
    HBM,
    CPU,
    NVME,
    REMOTE;

    /** Number of tiers; arrays indexed by tier have this length. */
    public static final int COUNT = values().length;

    private static final Tier[] BY_ORDINAL = values();

    public static Tier ofOrdinal(int ordinal) {
        return BY_ORDINAL[ordinal];
    }

    /** Parses a tier name case-insensitively ("hbm", "gpu" and "device" all mean {@link #HBM}). */
    public static Tier parse(String name) {
        if (name == null) {
            throw new IllegalArgumentException("tier is missing; expected one of hbm, cpu, nvme, remote");
        }
        switch (name.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "hbm": case "gpu": case "device": return HBM;
            case "cpu": case "host": case "dram": return CPU;
            case "nvme": case "disk": case "ssd": return NVME;
            case "remote": case "external": case "rdma": return REMOTE;
            default:
                throw new IllegalArgumentException(
                        "unknown tier '" + name + "'; expected one of hbm, cpu, nvme, remote");
        }
    }
}
