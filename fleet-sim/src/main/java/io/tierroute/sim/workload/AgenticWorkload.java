package io.tierroute.sim.workload;

import io.tierroute.sim.engine.EngineConfig;
import io.tierroute.sim.policy.SimRequest;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Agentic workflows: sessions of LLM steps separated by tool calls, each step's prompt the agent's
 * system prompt + its tool catalog + the whole history so far (so the context grows step by step),
 * with {@code expected_next_tools} and output-length hints as agent frameworks can send them.
 *
 * <p>Distributions: session starts Poisson at {@code sessionsPerSecond}; agent uniform over
 * {@code agents}, each with its own shared system prompt ({@code systemTokens}) and one of
 * {@code agents / 2} shared tool catalogs ({@code catalogTokens}, 6 tools each); steps geometric with
 * mean {@code meanSteps} (≤ 4·mean); user task log-normal (median 300, σ 0.6, [20, 4000]); each tool
 * result log-normal (median {@code toolResultMedian}, σ 1.0, [50, {@code toolResultMax}]); output
 * log-normal (median {@code outputMedian}, σ 0.8, [8, 2048]), max_tokens 2048; tool time between steps log-normal
 * (median {@code toolMedianSeconds}, σ 1.0, [0.05 s, 60 s]) after the step's own service, taken as 50 ms + 30 ms per output
 * token (open loop). Hints: 1–2 tools of the agent's catalog as expected next tools; expected output
 * = true output × U(0.8, 1.25).
 */
public record AgenticWorkload(String name, int agents, int systemTokens, int catalogTokens, double meanSteps,
                              int toolResultMedian, int toolResultMax, double sessionsPerSecond, int sessions,
                              double pcieBytesPerSecond, long hbmTokens, double toolMedianSeconds,
                              int outputMedian) implements Workload {

    /** Contexts of a few thousand to ~30 k tokens; fits the fleet's HBM when well placed. */
    public static AgenticWorkload standard() {
        return new AgenticWorkload("agentic", 8, 3000, 2000, 8, 800, 12_000, 0.8, 600, 0, 0, 2.0, 120);
    }

    @Override
    public String description() {
        return String.format("%d agents, %,d+%,d-token shared prompt+catalog, ~%.0f steps, tool results median %,d, "
                + "Poisson %.2f sessions/s, %d sessions", agents, systemTokens, catalogTokens, meanSteps,
                toolResultMedian, sessionsPerSecond, sessions);
    }

    @Override
    public List<SimRequest> generate(RequestFactory factory, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        List<SimRequest> out = new ArrayList<>();
        long start = 0;
        long privateBase = 1L << 40;
        int catalogs = Math.max(1, agents / 2);
        for (int s = 0; s < sessions; s++) {
            start += Dist.exponentialMicros(r, 1.0 / sessionsPerSecond);
            int agent = r.nextInt(agents);
            int catalog = agent % catalogs;
            BlockIds ids = new BlockIds(factory.blockSize(), privateBase)
                    .shared(1 + agent, systemTokens).shared(1000 + catalog, catalogTokens)
                    .unique(Dist.logNormal(r, 300, 0.6, 20, 4000));
            int steps = Dist.geometric(r, meanSteps, (int) (4 * meanSteps));
            long t = start;
            String workflow = name + "-wf" + s;
            for (int k = 0; k < steps; k++) {
                int output = Dist.logNormal(r, outputMedian, 0.8, 8, 2048);
                List<String> tools = new ArrayList<>(2);
                int nTools = 1 + r.nextInt(2);
                for (int i = 0; i < nTools; i++) {
                    String tool = "catalog" + catalog + ".tool" + r.nextInt(6);
                    if (!tools.contains(tool)) {
                        tools.add(tool);
                    }
                }
                int hint = (int) Math.max(1, Math.min(2048, Math.round(output * (0.8 + 0.45 * r.nextDouble()))));
                SimRequest.Agent ctx = new SimRequest.Agent(workflow, k, tools, hint);
                out.add(factory.request(workflow + "-s" + k, t, ids.tokens(), ids.ids(), 2048, output, ctx));
                ids.unique(output).unique(Dist.logNormal(r, toolResultMedian, 1.0, 50, toolResultMax));
                double toolSeconds = Math.min(60, Math.max(0.05, toolMedianSeconds * Math.exp(r.nextGaussian())));
                t += 50_000 + 30_000L * output + Math.round(toolSeconds * 1e6);
            }
            privateBase = ids.nextPrivate();
        }
        out.sort(Comparator.comparingLong(SimRequest::arrivalMicros));
        return out;
    }

    @Override
    public EngineConfig.Builder tune(EngineConfig.Builder engine) {
        if (hbmTokens > 0) {
            engine = engine.hbmCapacityTokens(hbmTokens);
        }
        return pcieBytesPerSecond > 0 ? engine.pcieBytesPerSecond(pcieBytesPerSecond) : engine;
    }
}
