package io.tierroute.sim.bench;

import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.policy.Completion;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * One run's completion logs as a CSV, one row per request in arrival order: where each request went and
 * where its time went (queue wait + tier load + prefill = TTFT; TTFT + decode = JCT), its hits per tier, the
 * prompt tokens it computed (recompute after preemption included), its preemptions, and how long the router held it
 * before binding it (late binding; part of its queue wait, 0 for a router that binds at arrival). Times in µs. This is
 * the evidence for "why is the tail slow" (fleet-sim/README.md): sort by {@code ttft_us} and read the phases.
 * A replayed trace's ids are {@code <file>#<record>}, the record counted from 0 (not the file's line: a header, an
 * Azure file's first line, is no record). A request the run rejected (larger than a worker's HBM) completed nowhere and
 * has no row: the report's {@code rejected} column counts them, and the run's warning says so.
 */
public final class RequestLog {

    static final String HEADER = "id,arrival_us,worker,prompt_tokens,output_tokens,queue_wait_us,tier_load_us,prefill_us,"
            + "decode_us,ttft_us,jct_us,hit_hbm_tokens,hit_cpu_tokens,hit_nvme_tokens,computed_tokens,"
            + "preemptions,held_us";

    private RequestLog() {}

    /** The file name of one run's log: {@code requests-<policy>-load<load>.csv}. */
    public static String fileName(String policy, double load) {
        return String.format(Locale.ROOT, "requests-%s-load%s.csv", policy.replaceAll("[^A-Za-z0-9._-]", "_"),
                java.math.BigDecimal.valueOf(load).stripTrailingZeros().toPlainString());
    }

    /** Writes the log of one run; a failure names the file ({@link ReportWriteException}). */
    public static void write(Path file, List<Completion> completions) throws IOException {
        List<Completion> ordered = completions.stream()
                .sorted(Comparator.comparingLong((Completion c) -> c.request().arrivalMicros())
                        .thenComparing(c -> c.request().id()))
                .toList();
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            write(w, ordered);
        } catch (IOException e) {
            throw new ReportWriteException(file, e);
        }
    }

    private static void write(Writer w, List<Completion> ordered) throws IOException {
        w.write(HEADER);
        w.write('\n');
        for (Completion c : ordered) {
            w.write(String.format(Locale.ROOT, "%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d%n",
                    csvSafe(c.request().id()), c.request().arrivalMicros(), c.worker(), c.request().promptTokens(),
                    c.outputTokens(), c.queueWaitMicros(), c.tierLoadMicros(), c.prefillMicros(), c.decodeMicros(),
                    c.ttftMicros(), c.jctMicros(), c.hitTokens()[Tier.HBM.ordinal()], c.hitTokens()[Tier.CPU.ordinal()],
                    c.hitTokens()[Tier.NVME.ordinal()], c.computedTokens(), c.preemptions(), c.heldMicros()));
        }
    }

    private static String csvSafe(String s) {
        return s.indexOf(',') < 0 && s.indexOf('"') < 0 ? s : '"' + s.replace("\"", "\"\"") + '"';
    }
}
