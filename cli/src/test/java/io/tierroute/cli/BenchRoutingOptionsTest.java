package io.tierroute.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Bad `bench routing` input: exit 2 and one line naming what is wrong, before any run starts. */
class BenchRoutingOptionsTest {

    @TempDir
    Path dir;

    private StringWriter err;

    /** A small valid run, with {@code extra}'s options in place of the defaults it names. */
    private int bench(String... extra) {
        Map<String, String> opts = new LinkedHashMap<>(Map.of("--policies", "random", "--limit", "40", "--workers", "2",
                "--workload", "llmd-blog", "--out", dir.resolve("out").toString()));
        if (List.of(extra).contains("--trace")) {
            opts.remove("--workload");
        }
        for (int i = 0; i < extra.length; i += 2) {
            opts.put(extra[i], extra[i + 1]);
        }
        List<String> args = new ArrayList<>(List.of("bench", "routing"));
        opts.forEach((k, v) -> args.addAll(List.of(k, v)));
        err = new StringWriter();
        return TierrouteCommand.execute(args.toArray(String[]::new), new PrintWriter(new StringWriter(), true),
                new PrintWriter(err, true));
    }

    private void assertUsageError(String expectedLine, String... extra) {
        assertThat(bench(extra)).as(String.join(" ", extra)).isEqualTo(2);
        assertThat(err.toString()).as(String.join(" ", extra)).isEqualTo("tierroute bench routing: " + expectedLine + System.lineSeparator());
        assertThat(dir.resolve("out")).as("nothing ran, nothing written").doesNotExist();
    }

    @Test
    void aBadLoadIsNamedWhenRequestLogsAreNamedAfterTheLoads() {
        // the request logs' names are made of the loads: before, their making failed first, on NaN's digits
        StringWriter e = new StringWriter();
        int rc = TierrouteCommand.execute(new String[] {"bench", "routing", "--policies", "random", "--workload",
            "llmd-blog", "--load", "NaN", "--request-logs", "--out", dir.resolve("out").toString()},
            new PrintWriter(new StringWriter(), true), new PrintWriter(e, true));
        assertThat(rc).isEqualTo(2);
        assertThat(e.toString()).isEqualTo("tierroute bench routing: --load must be a number in [0.01, 100] (got NaN)"
            + System.lineSeparator());
        assertThat(dir.resolve("out")).doesNotExist();
    }

    @Test
    void badNumbersNameTheirOption() {
        assertUsageError("--load must be a number in [0.01, 100] (got 0)", "--load", "0");
        assertUsageError("--load must be a number in [0.01, 100] (got NaN)", "--load", "NaN");
        assertUsageError("--load must be a number in [0.01, 100] (got Infinity)", "--load", "Infinity");
        assertUsageError("--load must be a number in [0.01, 100] (got 1.0E-9)", "--load", "1e-9");
        assertUsageError("--workers must be in [1, 4096] (got -3)", "--workers", "-3");
        assertUsageError("--hbm-tokens must be ≥ 512 (one KV block) (got 0)", "--hbm-tokens", "0");
        assertUsageError("--cpu-tokens must be ≥ 0 (got -1)", "--cpu-tokens", "-1");
        assertUsageError("--pcie-gbps must be in [0.01, 10000] (got NaN)", "--pcie-gbps", "NaN");
        assertUsageError("--pcie-gbps must be in [0.01, 10000] (got 1.0E-6)", "--pcie-gbps", "1e-6");
        assertUsageError("--nvme-tokens must be ≥ 0 (got -1)", "--nvme-tokens", "-1");
        assertUsageError("--nvme-gbps must be in [0.01, 10000] (got 0)", "--nvme-gbps", "0");
        assertUsageError("--limit must be ≥ 0 (got -5)", "--limit", "-5");
        assertUsageError("--warm-up must be a number in (0, 1] (got 2)", "--warm-up", "2");
    }

    @Test
    void anNvmeTierWithoutACpuTierToFillItIsRefused() {
        assertUsageError("--nvme-tokens must be 0 with --cpu-tokens 0: the NVMe tier receives the CPU tier's evictions, "
                + "so it needs a CPU tier (got 1000000)", "--cpu-tokens", "0", "--nvme-tokens", "1000000");
    }

    /** The old code blamed "--hbm-tokens / --cpu-tokens / --pcie-gbps / --nvme-tokens / --nvme-gbps" for a tier never asked for. */
    @Test
    void noCpuTierOnAWorkloadWithItsOwnNvmeTierNamesTheWorkloadAndBothWaysOut() {
        assertUsageError("--cpu-tokens 0 leaves no CPU tier, but the nvme-overflow workload has an NVMe tier, which "
                + "receives the CPU tier's evictions: keep a CPU tier (--cpu-tokens ≥ 512) or add --nvme-tokens 0",
                "--workload", "nvme-overflow", "--cpu-tokens", "0");
        assertThat(bench("--workload", "nvme-overflow", "--cpu-tokens", "0", "--nvme-tokens", "0"))
                .as("the second way out runs").isZero();
    }

    /** The old code said ": is a directory" (an empty path is the working directory). */
    @Test
    void anEmptyTracePathIsCalledEmptyAsAnEmptyOutIs() {
        assertUsageError("--trace must name a file (got an empty path)", "--trace", "");
    }

    /** On the old code this ran with an empty NVMe tier: 100 tokens are less than one block. */
    @Test
    void anNvmeTierBelowOneBlockIsRefused() {
        assertUsageError("--nvme-tokens must be 0 with --cpu-tokens 0: the NVMe tier receives the CPU tier's evictions, "
                + "so it needs a CPU tier (got 100)", "--cpu-tokens", "0", "--nvme-tokens", "100");
        assertUsageError("--nvme-tokens must be 0 (no NVMe tier) or ≥ 512 (one KV block) (got 100)", "--nvme-tokens", "100");
    }

    @Test
    void aBadLastLoadFailsBeforeTheFirstRun() {
        assertUsageError("--load must be a number in [0.01, 100] (got 0)", "--load", "1,2,0");
    }

    @Test
    void duplicatePoliciesOrLoadsAreRejected() {
        assertUsageError("--load must be a list of values distinct to two decimals (got 1,1)", "--load", "1,1");
        assertUsageError("--policies must be a list of distinct names (got random,random)", "--policies", "random,random");
        assertUsageError("--policies must be a list of distinct names (got random,random)", "--policies", "random, random");
    }

    /** picocli drops a trailing empty item ("1," was [1]): a stray comma is refused, not a changed sweep. */
    @Test
    void anEmptyListItemIsRefusedNamingItsOption() {
        assertUsageError("--load must be a list of values with no empty item (got 1,)", "--load", "1,");
        assertUsageError("--policies must be a list of names with no empty item (got random,)", "--policies", "random,");
        assertUsageError("--policies must be a list of names with no empty item (got random, ,oracle)", "--policies",
                "random, ,oracle");
        assertUsageError("--policies must be a list of names with no empty item (got ,random)", "--policies", ",random");
        assertThat(bench("--load", "1,,2")).as("picocli refuses the empty number itself").isEqualTo(2);
        assertThat(err.toString()).contains("'--load'");
    }

    @Test
    void theSynopsisShowsListsAsOneItemRepeated() {
        StringWriter out = new StringWriter();
        TierrouteCommand.execute(new String[] {"bench", "routing", "--help"}, new PrintWriter(out, true),
                new PrintWriter(new StringWriter(), true));
        assertThat(out.toString()).contains("--load=L[,L...]").contains("--policies=POLICY[,POLICY...]")
                .doesNotContain("L1,L2");
    }

    @Test
    void aCountOfOneIsSaidInTheSingular() throws Exception {
        assertThat(bench("--workers", "1")).as(err.toString()).isZero();
        assertThat(Files.readString(dir.resolve("out").resolve("results.txt")))
                .startsWith("tierroute bench routing: llmd-blog, 1 worker" + System.lineSeparator());
    }

    @Test
    void outMustNotBeAFile() throws Exception {
        Path file = Files.writeString(dir.resolve("results"), "x");
        assertThat(bench("--out", file.toString())).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("tierroute bench routing: --out must be a directory (got " + file
                + ", an existing file)" + System.lineSeparator());
    }

    @Test
    void aDirectoryWhereAReportGoesIsRefusedBeforeTheRuns() throws Exception {
        Files.createDirectories(dir.resolve("out/results.csv"));
        assertThat(bench("--out", dir.resolve("out").toString())).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("tierroute bench routing: --out " + dir.resolve("out") + ": results.csv is a "
                + "directory, where a report goes; move it or choose another --out" + System.lineSeparator());
        assertThat(bench("--out", "")).as("an empty --out is not the working directory").isEqualTo(2);
    }

    @Test
    void aBadTraceIsOneLineNotAStackTrace() throws Exception {
        Path trace = Files.writeString(dir.resolve("t.jsonl"), "{\"timestamp\": 1, \"input_length\": 10\n");
        assertThat(bench("--trace", trace.toString())).isEqualTo(2);
        assertThat(err.toString()).startsWith("tierroute bench routing: " + trace + ":1: ")
                .doesNotContain("\tat ").hasLineCount(1);
    }

    @Test
    void anOutDirectoryThatCannotBeWrittenIsRefusedBeforeTheRuns() {
        // /proc exists on every Linux (CI's machine) and takes no new files, even from root
        assertThat(bench("--out", "/proc")).isEqualTo(2);
        assertThat(err.toString()).startsWith("tierroute bench routing: --out /proc is not writable (").hasLineCount(1);
    }

    @Test
    void aMissingTraceAndADirectoryAreNamedAsSuch() throws Exception {
        Path missing = dir.resolve("none.jsonl");
        assertUsageError(missing + ": does not exist", "--trace", missing.toString());
        Path folder = Files.createDirectories(dir.resolve("folder.jsonl"));
        assertUsageError(folder + ": is a directory", "--trace", folder.toString());
        // the format is read from the name: without a known one, the old code said "unknown trace format"
        Path bare = dir.resolve("none");
        assertUsageError(bare + ": does not exist", "--trace", bare.toString());
        Path bareFolder = Files.createDirectories(dir.resolve("traces"));
        assertUsageError(bareFolder + ": is a directory", "--trace", bareFolder.toString());
    }

    @Test
    void badSeedListsAreRefusedBeforeTheFirstRun() {
        assertUsageError("--seed must be whole numbers ≥ 0 (got -1)", "--seed", "-1");
        assertUsageError("--seed must be whole numbers ≥ 0 (got -4)", "--seed", "1,-4");
        assertUsageError("--seed must be a list of seeds and ranges such as 1,2,5 or 1-10 (got x)", "--seed", "1-3,x");
        assertUsageError("--seed must be ascending ranges (low-high) (got 10-1)", "--seed", "10-1");
        assertUsageError("--seed must be a list naming each seed once (got 1-3,3: 3 twice)", "--seed", "1-3,3");
        assertUsageError("--seed must be at most 1000 seeds (got 1-1001)", "--seed", "1-1001");
        assertUsageError("--seed must be whole numbers in [0, 9223372036854775807] (got 99999999999999999999)",
                "--seed", "99999999999999999999");
    }

    @Test
    void helpExplainsTheSeedListAndTheOutputLayout() {
        StringWriter out = new StringWriter();
        assertThat(TierrouteCommand.execute(new String[]{"bench", "routing", "--help"}, new PrintWriter(out, true),
                new PrintWriter(new StringWriter(), true))).isZero();
        String help = out.toString().replaceAll("\\s+", " ");
        assertThat(help).contains("--seed=S", "1,2,5 or 1-10 or 1-3,7", "at most 1000", "--out/seed-<N>/",
                "summary.csv", "geometric mean", "below 0.97");
    }
}
