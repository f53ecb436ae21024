package io.tierroute.selector.params;

import io.tierroute.schemas.snapshot.SnapshotParameter;

import io.tierroute.selector.config.ConfigException;
import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.config.ConfigNode;
import io.tierroute.selector.config.Documents;
import io.tierroute.selector.protocol.Tier;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Loads a hand-written or exported parameter set from a YAML or JSON file into a {@link ParameterSet}.
 * Every key is optional; what is absent keeps the base value:
 *
 * <pre>
 * scope: default            # parameter scope
 * version: 3                # snapshot version, ≥ 0 (0 = defaults)
 * parameters:               # overrides of the cost parameters (CostParameters field names)
 *   alphaP: 1.2
 *   alphaD: 45
 *   decodeStepUs: 8000     # the admission wait's τ₀ (µs/token), α (decodeStepKvUs) and k (kvWaitScale, in [0, 1])
 * outputQuantile: 0.5       # quantile of the output-length model used as d̂, in (0, 1)
 * outputModel: qrf.bin      # a quantile forest exported by the fitter (Avro single-object), relative to this file
 * rho:                      # per worker NAME, per tier link utilisation in [0, 1]
 *   w0: {cpu: 0.3, nvme: 0.1}
 * bandwidth:                # per tier bandwidth overrides, bytes/s > 0
 *   cpu: 50e9
 * </pre>
 *
 * Errors are {@link ConfigException}s naming the file and the field ({@code rho.w9: unknown worker}).
 */
public final class ParameterFile {

    /** The cost parameter keys with the unit used in messages. */
    private static final Map<String, String> COST_KEYS = Map.ofEntries(
            Map.entry("alphaP", "µs/token"), Map.entry("alphaP2", "µs/token²"),
            Map.entry("alphaD", "µs/token"), Map.entry("alphaD2", "µs/token²"),
            Map.entry("alphaT", ""), Map.entry("alphaHo", "µs"), Map.entry("qSlack", "requests"),
            Map.entry("alphaWf", "µs"), Map.entry("lambda", "1/s"), Map.entry("alphaWf2", "µs"),
            Map.entry("rhoThreshold", ""), Map.entry("rhoEpsilon", ""), Map.entry("harmWeight", ""),
            Map.entry("alphaOwn", "µs/(token·step)"), Map.entry("queueHarmWeight", ""),
            Map.entry("decodeStepUs", "µs/token"), Map.entry("decodeStepKvUs", "µs/token²"),
            Map.entry("kvWaitScale", ""), Map.entry("prefillStepUs", "µs"));

    private static final String[] COST_KEY_ORDER = {"alphaP", "alphaP2", "alphaD", "alphaD2", "alphaT", "alphaHo",
            "qSlack", "alphaWf", "lambda", "alphaWf2", "rhoThreshold", "rhoEpsilon", "harmWeight", "alphaOwn", "queueHarmWeight",
            "decodeStepUs", "decodeStepKvUs", "kvWaitScale", "prefillStepUs"};

    private ParameterFile() {}

    /**
     * Reads {@code file} for a selector with {@code workerNames} (in registry order), on top of
     * {@code base} cost parameters.
     */
    public static ParameterSet load(Path file, List<String> workerNames, CostParameters base) {
        try {
            return parse(ConfigNode.root(Documents.read(file)), workerNames, base, file.toString(),
                    file.toAbsolutePath().getParent());
        } catch (ConfigException e) {
            throw e.file() == null ? e.inFile(file.toString()) : e;
        }
    }

    /** As {@link #parse(ConfigNode, List, CostParameters, String)}; {@code outputModel} paths resolve against {@code dir}. */
    public static ParameterSet parse(ConfigNode root, List<String> workerNames, CostParameters base, String source,
                                     Path dir) {
        root.object("scope", "version", "parameters", "outputQuantile", "outputModel", "rho", "bandwidth");
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < workerNames.size(); i++) {
            index.put(workerNames.get(i), i);
        }
        ParameterSet.Builder b = ParameterSet.builder(workerNames.size()).source(source);
        String scope = root.string("scope", "default");
        String scopeProblem = ConfigLoader.scopeProblem(scope); // kafka.scope's one rule
        if (scopeProblem != null) {
            throw root.require("scope").error(scopeProblem);
        }
        b.scope(scope);
        b.version(root.integer("version", 0, 0, Long.MAX_VALUE, ""));
        ConfigNode params = root.get("parameters");
        b.cost(params == null ? base : costOverrides(params, base));
        b.outputQuantile(root.number("outputQuantile", 0.5, 0, true, 1 - 1e-9, ""));
        ConfigNode model = root.get("outputModel");
        if (model != null) {
            b.outputModel(outputModel(model, dir));
        }
        ConfigNode rho = root.get("rho");
        if (rho != null) {
            for (Map.Entry<String, ConfigNode> w : rho.entries()) {
                Integer worker = index.get(w.getKey());
                if (worker == null) {
                    throw w.getValue().error("unknown worker '" + w.getKey() + "'; configured: " + abbreviate(workerNames));
                }
                for (Map.Entry<String, ConfigNode> t : w.getValue().entries()) {
                    Tier tier = tier(t.getKey(), t.getValue());
                    if (tier == Tier.HBM) { // as bandwidth.hbm is refused: a ρ there would change nothing
                        throw t.getValue().error("hbm has no transfer link; ρ is the utilisation of cpu, nvme or "
                                + "remote");
                    }
                    double v = t.getValue().checkRange(t.getValue().asNumber(), 0, false, 1, "");
                    b.rho(worker, tier, v);
                }
            }
        }
        ConfigNode bw = root.get("bandwidth");
        if (bw != null) {
            for (Map.Entry<String, ConfigNode> t : bw.entries()) {
                Tier tier = tier(t.getKey(), t.getValue());
                if (tier == Tier.HBM) {
                    throw t.getValue().error("hbm has no transfer bandwidth; only cpu, nvme and remote are charged");
                }
                b.bandwidth(tier, t.getValue().checkRange(t.getValue().asNumber(), 0, true, Double.MAX_VALUE, "bytes/s"));
            }
        }
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw root.error(e.getMessage());
        }
    }

    /**
     * The largest value a cost parameter may take here: a snapshot's physical bound where the parameter is fitted
     * ({@link SnapshotParameter}, what the selector's snapshot converter also enforces), else a bound far past any
     * sensible setting. Without one, {@code alphaP: 1e308} made every cost infinite and every route a 503 that blamed
     * load limits.
     */
    private static double upperBound(String key) {
        for (SnapshotParameter p : SnapshotParameter.SCALARS) {
            if (p.field().equals(key)) {
                return p.upper();
            }
        }
        return switch (key) {
            case "harmWeight", "queueHarmWeight" -> 100;     // weights of others' time against r's own
            case "alphaOwn" -> 10;                           // µs per decode step per resident KV token, as decodeStepKvUs
            case "prefillStepUs" -> 1e7;                     // 10 s for one prefill-carrying step
            default -> throw new IllegalStateException("no upper bound for cost parameter " + key);
        };
    }

    /** Applies the overrides in {@code node} (a mapping of {@link CostParameters} field names) to {@code base}. */
    public static CostParameters costOverrides(ConfigNode node, CostParameters base) {
        node.object(COST_KEY_ORDER);
        CostParameters.Builder b = base.toBuilder();
        for (String key : COST_KEY_ORDER) {
            ConfigNode c = node.get(key);
            if (c == null) {
                continue;
            }
            double v = c.asNumber();
            String unit = COST_KEYS.get(key);
            if (key.equals("rhoThreshold") || key.equals("rhoEpsilon")) {
                c.checkRange(v, 0, true, 1, unit);
            } else if (key.equals("kvWaitScale")) {
                c.checkRange(v, 0, false, 1, unit); // k = 0 switches the admission wait off
            } else {
                c.checkRange(v, 0, false, upperBound(key), unit);
            }
            switch (key) {
                case "alphaP" -> b.alphaP(v);
                case "alphaP2" -> b.alphaP2(v);
                case "alphaD" -> b.alphaD(v);
                case "alphaD2" -> b.alphaD2(v);
                case "alphaT" -> b.alphaT(v);
                case "alphaHo" -> b.alphaHo(v);
                case "qSlack" -> b.qSlack(v);
                case "alphaWf" -> b.alphaWf(v);
                case "lambda" -> b.lambda(v);
                case "alphaWf2" -> b.alphaWf2(v);
                case "rhoThreshold" -> b.rhoThreshold(v);
                case "rhoEpsilon" -> b.rhoEpsilon(v);
                case "harmWeight" -> b.harmWeight(v);
                case "alphaOwn" -> b.alphaOwn(v);
                case "queueHarmWeight" -> b.queueHarmWeight(v);
                case "decodeStepUs" -> b.decodeStepUs(v);
                case "decodeStepKvUs" -> b.decodeStepKvUs(v);
                case "prefillStepUs" -> b.prefillStepUs(v); // an engine property: set it for an engine other than vLLM
                case "kvWaitScale" -> b.kvWaitScale(v);
                default -> throw new IllegalStateException(key);
            }
        }
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw node.error(e.getMessage());
        }
    }

    /** The cost parameters as an ordered name → value map (for {@code GET /v1/params}). */
    public static Map<String, Double> asMap(CostParameters p) {
        Map<String, Double> m = new java.util.LinkedHashMap<>();
        m.put("alphaP", p.alphaP());
        m.put("alphaP2", p.alphaP2());
        m.put("alphaD", p.alphaD());
        m.put("alphaD2", p.alphaD2());
        m.put("alphaT", p.alphaT());
        m.put("alphaHo", p.alphaHo());
        m.put("qSlack", p.qSlack());
        m.put("alphaWf", p.alphaWf());
        m.put("lambda", p.lambda());
        m.put("alphaWf2", p.alphaWf2());
        m.put("rhoThreshold", p.rhoThreshold());
        m.put("rhoEpsilon", p.rhoEpsilon());
        m.put("harmWeight", p.harmWeight());
        m.put("alphaOwn", p.alphaOwn());
        m.put("queueHarmWeight", p.queueHarmWeight());
        m.put("decodeStepUs", p.decodeStepUs());
        m.put("decodeStepKvUs", p.decodeStepKvUs());
        m.put("kvWaitScale", p.kvWaitScale());
        m.put("prefillStepUs", p.prefillStepUs());
        return m;
    }

    /** Reads and validates an exported quantile forest; any problem names the field and the file. */
    private static OutputLengthModel outputModel(ConfigNode node, Path dir) {
        if (dir == null) {
            throw node.error("an output model file needs a parameter file to resolve it against");
        }
        Path file = dir.resolve(node.asPath());
        byte[] bytes;
        try {
            bytes = java.nio.file.Files.readAllBytes(file);
        } catch (java.io.IOException e) {
            throw node.error("cannot read the output model " + file + ": " + e.getMessage());
        }
        try {
            return ForestOutputModel.decode(bytes);
        } catch (RuntimeException e) { // a decode error or a structurally invalid model
            throw node.error("the output model " + file + " is not a valid quantile forest: " + e.getMessage());
        }
    }

    private static Tier tier(String name, ConfigNode at) {
        try {
            return Tier.parse(name);
        } catch (IllegalArgumentException e) {
            throw at.error(e.getMessage());
        }
    }

    private static String abbreviate(List<String> names) {
        if (names.size() <= 8) {
            return String.join(", ", names);
        }
        return String.join(", ", names.subList(0, 4)) + ", …, " + names.get(names.size() - 1)
                + " (" + names.size() + " workers)";
    }
}
