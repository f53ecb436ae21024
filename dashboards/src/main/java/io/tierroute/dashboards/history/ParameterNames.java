package io.tierroute.dashboards.history;

import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.TierBandwidth;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The fitted scalar parameters of a {@link ParameterSnapshot}, by the names the dashboard shows
 * (the Avro field names; bandwidths as {@code bw.<TIER>}), and their units (DESIGN.md §3).
 */
public final class ParameterNames {

    private static final Map<String, String> UNITS = Map.ofEntries(
            Map.entry("alphaP", "µs/token"), Map.entry("alphaP2", "µs/token²"), Map.entry("alphaD", "µs/token"),
            Map.entry("alphaD2", "µs/token²"), Map.entry("alphaT", "×"), Map.entry("alphaHo", "µs/request²"),
            Map.entry("qSlack", "requests"), Map.entry("alphaWf", "µs"), Map.entry("lambda", "1/s"),
            Map.entry("alphaWf2", "µs"), Map.entry("decodeStepUs", "µs/token"),
            Map.entry("decodeStepKvUs", "µs/token²"), Map.entry("kvWaitScale", "×"));

    private ParameterNames() {}

    /** Every fitted scalar of {@code s}, in schema order, bandwidths last. */
    public static Map<String, Fitted> fittedValues(ParameterSnapshot s) {
        Map<String, Fitted> m = new LinkedHashMap<>();
        m.put("alphaP", Fitted.of(s.getAlphaP()));
        m.put("alphaP2", Fitted.of(s.getAlphaP2()));
        m.put("alphaD", Fitted.of(s.getAlphaD()));
        m.put("alphaD2", Fitted.of(s.getAlphaD2()));
        m.put("alphaT", Fitted.of(s.getAlphaT()));
        m.put("alphaHo", Fitted.of(s.getAlphaHo()));
        m.put("qSlack", Fitted.of(s.getQSlack()));
        m.put("alphaWf", Fitted.of(s.getAlphaWf()));
        m.put("lambda", Fitted.of(s.getLambda()));
        m.put("alphaWf2", Fitted.of(s.getAlphaWf2()));
        // the admission wait of C_kv: τ₀, α (per resident KV token) and k
        m.put("decodeStepUs", Fitted.of(s.getDecodeStepUs()));
        m.put("decodeStepKvUs", Fitted.of(s.getDecodeStepKvUs()));
        m.put("kvWaitScale", Fitted.of(s.getKvWaitScale()));
        for (TierBandwidth b : s.getBandwidths()) {
            m.put("bw." + b.getTier().name(), Fitted.of(b.getBytesPerSecond()));
        }
        return m;
    }

    /** The unit of a parameter name from {@link #fittedValues}. */
    public static String unit(String name) {
        if (name.startsWith("bw.")) {
            return "bytes/s";
        }
        return UNITS.getOrDefault(name, "");
    }
}
