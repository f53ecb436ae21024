package io.tierroute.sim.policy.tierroute;

import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.scheduling.CostBreakdown;
import io.tierroute.selector.scheduling.RouteDecision;

import java.io.BufferedWriter;
import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Locale;

/**
 * Diagnosis switch of the routing rounds (fleet-sim/experiments/README.md): with {@code -Dtr.candLog=PREFIX} each
 * measured tierroute run (not its warm-ups) writes every candidate's cost terms for every request, one CSV line per
 * candidate, to its own {@code PREFIX-<n>.csv} (n from the clock; the header line names the fitted parameters, which
 * tell the loads apart). Off (the default) nothing is explained or written and routing is unchanged.
 */
final class CandidateLog {

    /** The JVM option that names the file prefix. */
    static final String PROPERTY = "tr.candLog";

    private final PrintWriter out;

    CandidateLog(String prefix, String header) {
        String file = prefix + "-" + Long.toUnsignedString(System.nanoTime() % 1_000_000) + ".csv";
        try {
            out = new PrintWriter(new BufferedWriter(new FileWriter(file)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.println("# " + header);
        out.println("req,t_us,isl,dhat,chosen,worker,total,prefill,harm,queue,decode,kv,hol,tier,wf,hit,p_eff,"
                + "in_flight,waiting,dec_tokens,dec_quad,kv_used,fleet_inflight,queued_prefill,hit_cpu,tier_transfer_us,"
                + "recompute_quad");
    }

    void write(String id, long nowMicros, RouteDecision d) {
        int cpu = Tier.CPU.ordinal();
        for (int w = 0; w < d.candidates().size(); w++) {
            CostBreakdown c = d.candidates().get(w).cost();
            if (c == null) {
                continue;
            }
            out.printf(Locale.ROOT, "%s,%d,%d,%d,%d,%d,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%d,%d,%d,%d,%d,%.0f,%d,%.3f,%d,%d,%.1f,%.0f%n",
                    id, nowMicros, d.inputTokens(), d.predictedOutputTokens(), d.workerIndex(), w, c.totalUs(),
                    c.prefillUs(), c.harmUs(), c.queueUs(), c.decodeUs(), c.kvUs(), c.headOfLineUs(), c.tierUs(),
                    c.workflowBonusUs(), c.hitTokens(), c.pEffTokens(), c.inFlight(), c.queueLength(),
                    c.inflightDecodeTokens(), c.inflightDecodeQuadratic(), c.kvUsedTokens(), c.fleetInFlight(),
                    c.queuedPrefillTokens(), c.tierTokens()[cpu], c.tierTransferUs()[cpu], c.recomputeQuadratic());
        }
        out.flush();
    }
}
