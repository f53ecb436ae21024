package io.tierroute.sim.bench;

import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.engine.SimResult;
import io.tierroute.sim.policy.Completion;
import org.HdrHistogram.Histogram;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The figures of one (policy, load) run, as data: named metrics in a fixed order that every
 * reporter prints, plus the TTFT histogram for CDF plots. Times are in seconds. A latency of a run in
 * which no request completed (all rejected) is NaN, not 0: there is none, and 0 would rank it fastest.
 */
public final class RunReport {

    /** Metric names, in report order. */
    public static final String[] METRICS = {
            "requests", "ttft_mean_s", "ttft_p50_s", "ttft_p90_s", "ttft_p99_s", "jct_mean_s", "jct_p99_s",
            "throughput_tok_s", "hit_hbm", "hit_cpu", "hit_nvme", "pcie_util", "nvme_util", "gpu_util", "preemptions", "rejected", "wall_s"};

    /** The metrics that are counts, written as integers. */
    public static final Set<String> COUNTS = Set.of("requests", "preemptions", "rejected");

    private final String policy;
    private final String version;
    private final double load;
    private final Map<String, Double> values = new LinkedHashMap<>();
    private final Histogram ttft;
    private final String note;

    private RunReport(String policy, String version, double load, Histogram ttft, String note) {
        this.policy = policy;
        this.version = version;
        this.load = load;
        this.ttft = ttft;
        this.note = note;
    }

    /** Computes every metric from a run's completion logs and engine counters. */
    public static RunReport of(SimResult r, double load) {
        return of(r, load, null);
    }

    /** As {@link #of(SimResult, double)}, with a {@link #note()} (null: none). */
    public static RunReport of(SimResult r, double load, String note) {
        // Auto-resizing: a trace can put a request weeks of simulated time behind (a fixed 1 h range threw after every
        // run had finished, and no report was written).
        Histogram ttft = new Histogram(3);
        Histogram jct = new Histogram(3);
        long firstArrival = Long.MAX_VALUE;
        long outputTokens = 0;
        long promptTokens = 0;
        long[] hit = new long[Tier.COUNT];
        for (Completion c : r.completions()) {
            if (c.ttftMicros() < 0 || c.jctMicros() < c.ttftMicros()) { // the engine's invariant: never clamped away
                throw new IllegalStateException("request " + c.request().id() + " of policy " + r.policy()
                        + " completed with TTFT " + c.ttftMicros() + " µs and JCT " + c.jctMicros() + " µs: a defect "
                        + "of the simulator");
            }
            ttft.recordValue(c.ttftMicros());
            jct.recordValue(c.jctMicros());
            firstArrival = Math.min(firstArrival, c.request().arrivalMicros());
            outputTokens += c.outputTokens();
            promptTokens += c.request().promptTokens();
            for (int t = 0; t < Tier.COUNT; t++) {
                hit[t] += c.hitTokens()[t];
            }
        }
        long span = Math.max(1, r.endMicros() - (firstArrival == Long.MAX_VALUE ? 0 : firstArrival));
        long preemptions = 0;
        double linkBusy = 0;
        double nvmeBusy = 0;
        double stepBusy = 0;
        for (SimResult.WorkerStats w : r.workers()) {
            preemptions += w.preemptions();
            linkBusy += w.linkBusyMicros();
            nvmeBusy += w.nvmeBusyMicros();
            stepBusy += w.busyMicros();
        }
        RunReport rep = new RunReport(r.policy(), r.policyVersion(), load, ttft, note);
        boolean none = r.completions().isEmpty();
        rep.values.put("requests", (double) r.completions().size());
        rep.values.put("ttft_mean_s", none ? Double.NaN : ttft.getMean() / 1e6);
        rep.values.put("ttft_p50_s", none ? Double.NaN : ttft.getValueAtPercentile(50) / 1e6);
        rep.values.put("ttft_p90_s", none ? Double.NaN : ttft.getValueAtPercentile(90) / 1e6);
        rep.values.put("ttft_p99_s", none ? Double.NaN : ttft.getValueAtPercentile(99) / 1e6);
        rep.values.put("jct_mean_s", none ? Double.NaN : jct.getMean() / 1e6);
        rep.values.put("jct_p99_s", none ? Double.NaN : jct.getValueAtPercentile(99) / 1e6);
        rep.values.put("throughput_tok_s", outputTokens / (span / 1e6));
        rep.values.put("hit_hbm", promptTokens == 0 ? 0 : (double) hit[Tier.HBM.ordinal()] / promptTokens);
        rep.values.put("hit_cpu", promptTokens == 0 ? 0 : (double) hit[Tier.CPU.ordinal()] / promptTokens);
        rep.values.put("hit_nvme", promptTokens == 0 ? 0 : (double) hit[Tier.NVME.ordinal()] / promptTokens);
        rep.values.put("pcie_util", linkBusy / r.workers().size() / span);
        rep.values.put("nvme_util", nvmeBusy / r.workers().size() / span);
        // Share of the span the workers were running steps (prefill or decode): what binds before the link does.
        rep.values.put("gpu_util", stepBusy / r.workers().size() / span);
        rep.values.put("preemptions", (double) preemptions);
        rep.values.put("rejected", (double) r.rejected());
        rep.values.put("wall_s", r.wallMillis() / 1000.0);
        return rep;
    }

    public String policy() { return policy; }
    public String version() { return version; }
    public double load() { return load; }
    public Histogram ttftHistogram() { return ttft; }
    /** What a reader must know that the figures do not say (a fitted policy that ran unfitted), or null. */
    public String note() { return note; }

    /** The metric's value; NaN when the run has none (see the class comment). */
    public double get(String metric) {
        Double v = values.get(metric);
        if (v == null) {
            throw new IllegalArgumentException("unknown metric " + metric);
        }
        return v;
    }
}
