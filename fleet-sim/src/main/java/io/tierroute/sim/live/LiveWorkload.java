package io.tierroute.sim.live;

import io.tierroute.sim.engine.EngineConfig;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.trace.TraceFormat;
import io.tierroute.sim.trace.TraceReplay;
import io.tierroute.sim.workload.RequestFactory;
import io.tierroute.sim.workload.Workload;
import io.tierroute.sim.workload.Workloads;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The engines and requests of a live run: a trace (Mooncake JSONL, Azure CSV) or a named generated
 * workload ({@link Workloads}), at a load factor (arrival-rate multiplier).
 */
public record LiveWorkload(EngineConfig engines, List<SimRequest> requests, String description) {

    /**
     * @param trace    a trace file, or null when {@code workload} is given
     * @param workload a workload name ({@link Workloads#names()}), or null
     */
    public static LiveWorkload load(Path trace, String workload, int workers, double load, int limit, long seed) {
        if ((trace == null) == (workload == null)) {
            throw new IllegalArgumentException("give exactly one of a trace and a workload");
        }
        EngineConfig.Builder b = EngineConfig.builder().workers(workers);
        Workload w = workload == null ? null : Workloads.named(workload);
        if (w != null) {
            b = w.tune(b);
        }
        EngineConfig cfg = b.build();
        RequestFactory factory = new RequestFactory(cfg.model(), cfg.blockSize());
        List<SimRequest> base;
        String what;
        if (trace != null) {
            if (!Files.isReadable(trace)) {
                throw new IllegalArgumentException("trace " + trace + " is not a readable file");
            }
            base = TraceReplay.load(trace, TraceFormat.ofFile(trace.toString()), factory, limit);
            what = "trace " + trace.getFileName();
        } else {
            List<SimRequest> all = w.generate(factory, seed);
            base = limit > 0 && all.size() > limit ? all.subList(0, limit) : all;
            what = "workload " + workload;
        }
        List<SimRequest> scaled = Workloads.atLoad(base, load);
        return new LiveWorkload(cfg, scaled, what + " (" + scaled.size() + " requests, load " + load + ", "
                + workers + (workers == 1 ? " worker)" : " workers)"));
    }
}
