package io.tierroute.sim.workload;

import io.tierroute.sim.policy.SimRequest;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The named generated workloads, and the load knob. */
public final class Workloads {

    private static final Map<String, Workload> BY_NAME = new LinkedHashMap<>();

    static {
        add(SharedPrefixWorkload.llmdBlog());
        add(SharedPrefixWorkload.cpuOverflow());
        add(SharedPrefixWorkload.nvmeOverflow());
        add(AgenticWorkload.standard());
        add(FanOutAgentWorkload.pcieContention());
        add(ChatWorkload.standard());
    }

    private Workloads() {}

    private static void add(Workload w) {
        BY_NAME.put(w.name(), w);
    }

    public static List<String> names() {
        return List.copyOf(BY_NAME.keySet());
    }

    public static Workload named(String name) {
        Workload w = BY_NAME.get(name);
        if (w == null) {
            throw new IllegalArgumentException("unknown workload '" + name + "'; known: " + String.join(", ", names()));
        }
        return w;
    }

    /**
     * The same requests at {@code load} times the base rate: every arrival time divided by
     * {@code load} (so sessions' gaps shrink too).
     */
    public static List<SimRequest> atLoad(List<SimRequest> base, double load) {
        // Infinity would put every arrival at 0 and NaN would make them all 0 too: neither is a load.
        if (!(load > 0 && Double.isFinite(load))) {
            throw new IllegalArgumentException("load must be a finite number > 0, got " + load);
        }
        if (load == 1.0) {
            return base;
        }
        List<SimRequest> out = new ArrayList<>(base.size());
        for (SimRequest r : base) {
            out.add(new SimRequest(r.id(), Math.round(r.arrivalMicros() / load), r.promptTokens(), r.blockIds(),
                    r.blockHashes(), r.blockSize(), r.maxTokens(), r.trueOutputTokensForOracleOnly(), r.agent()));
        }
        return out;
    }
}
