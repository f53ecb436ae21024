package io.tierroute.sim.workload;

import io.tierroute.sim.engine.EngineConfig;
import io.tierroute.sim.policy.SimRequest;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Agent sessions that fan out: an orchestrator reads a long context and plans, then forks {@code K}
 * parallel sub-agents from its whole context (map-reduce agents, parallel tool use, best-of-n coders), which
 * work in rounds separated by a tool call they share (the session's sandbox runs the build or the test
 * suite for all of them), and finally resumes with their summaries. This is what makes an agentic fleet
 * contend its PCIe links: the siblings' contexts (the shared fork prefix plus each one's history) sit idle
 * during the tool call, are evicted from HBM to the CPU tier by other sessions' traffic, and come back
 * <em>together</em> when the tool returns, so several CPU→GPU loads of tens of thousands of tokens land on
 * the link of the worker that holds them at once.
 *
 * <p>Distributions (all per session unless said otherwise):
 * <ul>
 * <li>session starts Poisson at {@code sessionsPerSecond}; agent type uniform over {@code agents}, each with
 *     its shared system prompt ({@code systemTokens}) and one of {@code agents / 2} shared tool catalogs
 *     ({@code catalogTokens});</li>
 * <li>orchestrator step 0: system + catalog + task (log-normal median 300, σ 0.6, [20, 4000]) + the context it
 *     works on (repository files, documents: log-normal median {@code contextMedian}, σ 0.5, [4,000,
 *     {@code contextMax}], private to the session); its plan: output log-normal median 300, σ 0.5, [50, 1500];</li>
 * <li>fork after the plan and a tool call (log-normal median 1 s, σ 0.5): {@code K} uniform in
 *     [{@code minFanOut}, {@code maxFanOut}] sub-agents, each = the orchestrator's context + plan + its own
 *     instruction (log-normal median 200, σ 0.5, [20, 1000]);</li>
 * <li>rounds per sub-agent geometric with mean {@code meanRounds} (≤ 3·mean); each step's output log-normal
 *     median {@code outputMedian}, σ 0.8, [8, 2048] (max_tokens 2048), then a tool result log-normal median
 *     {@code toolResultMedian}, σ 1.0, [50, 6000]; a sub-agent stops early when its context would pass 96 k
 *     tokens (a context-window budget);</li>
 * <li>round timing: round {@code j+1} starts when the last sibling's step {@code j} is served (50 ms + 30 ms
 *     per output token, open loop) plus the shared tool call (log-normal median {@code toolMedianSeconds},
 *     σ 0.8, [0.5 s, 60 s]); each sibling arrives after that plus its own jitter (exponential, mean
 *     {@code jitterSeconds});</li>
 * <li>the orchestrator resumes after the last round with every sub-agent's summary (its last output) appended,
 *     output log-normal median 400, σ 0.5;</li>
 * <li>hints: 1–2 tools of the agent's catalog as expected next tools; expected output = true output ×
 *     U(0.8, 1.25). Each sub-agent is its own workflow ({@code <session>.<k>}), the orchestrator another.</li>
 * </ul>
 */
public record FanOutAgentWorkload(String name, int agents, int systemTokens, int catalogTokens, int contextMedian,
                                  int contextMax, int minFanOut, int maxFanOut, double meanRounds, int toolResultMedian,
                                  int outputMedian, double toolMedianSeconds, double jitterSeconds,
                                  double sessionsPerSecond, int sessions, double pcieBytesPerSecond, long hbmTokens)
        implements Workload {

    /** Context-window budget of a sub-agent, tokens. */
    static final int CONTEXT_BUDGET = 96_000;
    /** Private block ids per forked context (far more than any context's blocks). */
    private static final long PRIVATE_RANGE = 1L << 20;

    public FanOutAgentWorkload {
        if (agents < 2 || minFanOut < 1 || maxFanOut < minFanOut || sessions < 1 || !(sessionsPerSecond > 0)
                || !(meanRounds >= 1) || contextMedian < 1 || contextMax < 4000) {
            throw new IllegalArgumentException("invalid fan-out workload parameters for " + name);
        }
    }

    /**
     * Qwen3-32B-like KV (256 KiB/token, the engine default) with the engine's default HBM, 262,144 tokens (64 GiB: a
     * 141 GB GPU beside FP8 weights; every recorded run used it, though this note said 128 k until 2026-12-02), and an
     * effective 25 GB/s host→device copy rate (PCIe Gen4 ×16, or Gen5 through an
     * offload connector's staging copies). A sibling's context is ~30–60 k tokens (10 k of shared system prompt
     * and catalog, a median 20 k of session context, its history), 7.9–15.7 GB: 0.3–0.6 s alone on the link
     * (10.5 µs/token, against ~20 µs/token to recompute), so three siblings loading on one link already make
     * the CPU tier slower than recomputing elsewhere. Rates: fleet-sim/experiments/ROUNDS.md "Agentic with a CPU tier under PCIe load".
     */
    public static FanOutAgentWorkload pcieContention() {
        return new FanOutAgentWorkload("agentic-pcie", 8, 6000, 4000, 20_000, 48_000, 3, 6, 8, 1500, 30, 5.0, 0.2,
                0.3, 300, 25e9, 0);
    }

    @Override
    public String description() {
        return String.format("%d agents, %,d+%,d-token shared prompt+catalog, session context median %,d, fan-out %d–%d "
                + "sub-agents × ~%.0f rounds, shared tool calls median %.1f s, Poisson %.2f sessions/s, %d sessions", agents,
                systemTokens, catalogTokens, contextMedian, minFanOut, maxFanOut, meanRounds, toolMedianSeconds,
                sessionsPerSecond, sessions);
    }

    @Override
    public List<SimRequest> generate(RequestFactory factory, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        List<SimRequest> out = new ArrayList<>();
        int catalogs = Math.max(1, agents / 2);
        long start = 0;
        long nextRange = 1L << 40;
        for (int s = 0; s < sessions; s++) {
            start += Dist.exponentialMicros(r, 1.0 / sessionsPerSecond);
            int agent = r.nextInt(agents);
            int catalog = agent % catalogs;
            String session = name + "-wf" + s;
            BlockIds orchestrator = new BlockIds(factory.blockSize(), nextRange).shared(1 + agent, systemTokens)
                    .shared(1000 + catalog, catalogTokens).unique(Dist.logNormal(r, 300, 0.6, 20, 4000))
                    .unique(Dist.logNormal(r, contextMedian, 0.5, 4000, contextMax));
            nextRange += PRIVATE_RANGE;
            int plan = Dist.logNormal(r, 300, 0.5, 50, 1500);
            out.add(step(factory, r, session, 0, start, orchestrator, plan, catalog));
            orchestrator.unique(plan);
            long t = start + service(plan) + Math.round(Dist.logNormal(r, 1000, 0.5, 100, 10_000) * 1000.0);

            int k = Dist.uniform(r, minFanOut, maxFanOut);
            BlockIds[] subs = new BlockIds[k];
            int[] rounds = new int[k];
            int[] lastOutput = new int[k];
            int maxRounds = 0;
            for (int i = 0; i < k; i++) {
                subs[i] = orchestrator.fork(nextRange).unique(Dist.logNormal(r, 200, 0.5, 20, 1000));
                nextRange += PRIVATE_RANGE;
                rounds[i] = Dist.geometric(r, meanRounds, (int) (3 * meanRounds));
                maxRounds = Math.max(maxRounds, rounds[i]);
            }
            for (int j = 0; j < maxRounds; j++) {
                long lastServed = t;
                for (int i = 0; i < k; i++) {
                    if (j >= rounds[i] || subs[i].tokens() > CONTEXT_BUDGET) {
                        continue;
                    }
                    long arrival = t + Dist.exponentialMicros(r, jitterSeconds);
                    int output = Dist.logNormal(r, outputMedian, 0.8, 8, 2048);
                    out.add(step(factory, r, session + "." + i, j, arrival, subs[i], output, catalog));
                    lastOutput[i] = output;
                    subs[i].unique(output).unique(Dist.logNormal(r, toolResultMedian, 1.0, 50, 6000));
                    lastServed = Math.max(lastServed, arrival + service(output));
                }
                double tool = Math.min(60, Math.max(0.5, toolMedianSeconds * Math.exp(0.8 * r.nextGaussian())));
                t = lastServed + Math.round(tool * 1e6);
            }
            for (int i = 0; i < k; i++) {
                orchestrator.unique(lastOutput[i]);
            }
            out.add(step(factory, r, session, 1, t, orchestrator, Dist.logNormal(r, 400, 0.5, 50, 2048), catalog));
        }
        out.sort(Comparator.comparingLong(SimRequest::arrivalMicros));
        return out;
    }

    /** The open-loop time an agent takes to read a step's output before its tool call starts. */
    private static long service(int outputTokens) {
        return 50_000 + 30_000L * outputTokens;
    }

    private static SimRequest step(RequestFactory factory, SplittableRandom r, String workflow, int step, long arrival,
                                   BlockIds ids, int output, int catalog) {
        List<String> tools = new ArrayList<>(2);
        int nTools = 1 + r.nextInt(2);
        for (int i = 0; i < nTools; i++) {
            String tool = "catalog" + catalog + ".tool" + r.nextInt(6);
            if (!tools.contains(tool)) {
                tools.add(tool);
            }
        }
        int hint = (int) Math.max(1, Math.min(2048, Math.round(output * (0.8 + 0.45 * r.nextDouble()))));
        return factory.request(workflow + "-s" + step, arrival, ids.tokens(), ids.ids(), 2048, output,
                new SimRequest.Agent(workflow, step, tools, hint));
    }

    @Override
    public EngineConfig.Builder tune(EngineConfig.Builder engine) {
        engine = hbmTokens > 0 ? engine.hbmCapacityTokens(hbmTokens) : engine;
        return pcieBytesPerSecond > 0 ? engine.pcieBytesPerSecond(pcieBytesPerSecond) : engine;
    }
}
