package io.tierroute.jobs.fit;

import java.util.Map;
import java.util.TreeMap;

/**
 * The BW_t a scope's ρ tracker divides by, from one telemetry sample on: the full map, taken whenever an
 * accepted snapshot changes it. Kept (list state) so that the replay after a restore turns each buffered
 * sample's bytes into the same utilisation as the first time, not with the newest BW_t. A Flink POJO.
 */
public class BandwidthChange {
    /** Absolute index (per scope, since the first sample) of the first telemetry sample it applies to. */
    public long atTelemetry;
    public String[] tiers;
    public double[] bytesPerSecond;

    public BandwidthChange() {}

    static BandwidthChange of(long atTelemetry, Map<String, Double> bandwidths) {
        BandwidthChange c = new BandwidthChange();
        c.atTelemetry = atTelemetry;
        TreeMap<String, Double> sorted = new TreeMap<>(bandwidths);
        c.tiers = sorted.keySet().toArray(new String[0]);
        c.bytesPerSecond = sorted.values().stream().mapToDouble(Double::doubleValue).toArray();
        return c;
    }
}
