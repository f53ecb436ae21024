package io.tierroute.sim.policy.tierroute;
import io.tierroute.sim.bench.*;
import io.tierroute.sim.engine.*;
import io.tierroute.sim.policy.*;
import io.tierroute.sim.workload.Workloads;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.scheduling.CostBreakdown;
import java.nio.file.*;
import java.io.*;
import java.util.*;

public class DecisionDump {
    @SuppressWarnings("unchecked")
    static Map<String, CostBreakdown> dec(TierroutePolicy p) throws Exception {
        var f = TierroutePolicy.class.getDeclaredField("decisions"); f.setAccessible(true); return (Map<String, CostBreakdown>) f.get(p);
    }
    public static void main(String[] a) throws Exception {
        String src = a[0]; double load = Double.parseDouble(a[1]); String out = a[2];
        boolean trace = src.endsWith(".jsonl");
        BenchSpec spec = new BenchSpec(trace ? Path.of(src) : null, trace ? null : src, 0, 8, List.of(load), List.of("tierroute-fitted"), 1L, null, null, null, 0.3);
        EngineConfig cfg = BenchRunner.engine(spec);
        List<SimRequest> scaled = Workloads.atLoad(BenchRunner.requests(spec, cfg), load);
        List<SimRequest> warm = scaled.subList(0, Math.max(1, (int) (scaled.size() * 0.3)));
        Simulation sim = new Simulation(cfg, scaled);
        int n = 8;
        ParameterSet params = ParameterSet.defaults(n);
        for (int round = 0; round < TierroutePolicy.FIT_ROUNDS; round++) {
            TierroutePolicy probe = new TierroutePolicy("w", sim.fleetView(), 1L ^ (0x5DEECE66DL + round), params, 0.1, true);
            List<Completion> log = new Simulation(cfg, warm).run(probe, null).completions();
            params = TierrouteFitting.fit(dec(probe), log, n);
        }
        TierroutePolicy pol = new TierroutePolicy("tierroute-fitted", sim.fleetView(), 1L, params, 0, true);
        SimResult r = sim.run(pol, null);
        Map<String, CostBreakdown> dec = dec(pol);
        try (PrintWriter w = new PrintWriter(new FileWriter(out))) {
            w.println("id,arr,worker,isl,out,queue,load,prefill,decode,ttft,jct,hitH,hitC,computed,preempt,pEff,kvOver,kvUsed,inFlight,Q,qPre,fleetA,harmUs,kvUs,prefUs,queueUs,tierUs,holUs,decUs,totalUs");
            for (Completion c : r.completions()) {
                CostBreakdown d = dec.get(c.request().id());
                w.printf(Locale.ROOT, "%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%.0f,%d,%d,%d,%d,%.2f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f%n", c.request().id(), c.request().arrivalMicros(), c.worker(),
                    c.request().promptTokens(), c.outputTokens(), c.queueWaitMicros(), c.tierLoadMicros(), c.prefillMicros(), c.decodeMicros(),
                    c.ttftMicros(), c.jctMicros(), c.hitTokens()[0], c.hitTokens()[1], c.computedTokens(), c.preemptions(),
                    d.pEffTokens(), d.kvOverflowTokens(), d.kvUsedTokens(), d.inFlight(), d.queueLength(), d.queuedPrefillTokens(), d.fleetInFlight(),
                    d.harmUs(), d.kvUs(), d.prefillUs(), d.queueUs(), d.tierUs(), d.headOfLineUs(), d.decodeUs(), d.totalUs());
            }
        }
        System.out.println(pol.version() + " | " + params.source());
    }
}
