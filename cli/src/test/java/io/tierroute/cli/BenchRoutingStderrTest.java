package io.tierroute.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** What a `bench routing` run says on stderr besides its progress: a warning a run's figures need, a report it cannot write. */
class BenchRoutingStderrTest {

    @TempDir
    Path dir;

    private final StringWriter err = new StringWriter();

    private int bench(String... args) {
        List<String> all = new ArrayList<>(List.of("bench", "routing"));
        all.addAll(List.of(args));
        return TierrouteCommand.execute(all.toArray(String[]::new), new PrintWriter(new StringWriter(), true),
                new PrintWriter(err, true));
    }

    /** The old code ran tierroute-fitted on the defaults without a word: only the CSV's version column told. */
    @Test
    void aFittedPolicyWithTooShortAWarmUpIsWarnedAboutAndMarkedInTheReports() throws Exception {
        Path out = dir.resolve("out");
        assertThat(bench("--workload", "chat", "--limit", "200", "--policies", "tierroute-default,tierroute-fitted",
                "--out", out.toString())).isZero();
        String note = "not fitted, ran on its default parameters: its warm-up gave 60 completions, fewer than the 64 a "
                + "fit needs; use a larger --limit or --warm-up";
        assertThat(err.toString().lines()).containsExactly(
                "tierroute bench routing: warning: tierroute-fitted @ load 1.00, seed 1: " + note);
        assertThat(Files.readString(out.resolve("results.txt"))).contains("\ntierroute-fitted* ", "\n* tierroute-fitted: " + note);
        assertThat(Files.readString(out.resolve("report.html"))).contains("<p class=\"note\">* tierroute-fitted: " + note);
    }

    /** The old code ran these with no word: every value of the option gave the same figures. */
    @Test
    void aLinkBandwidthForATierTheRunDoesNotHaveIsNoted() throws Exception {
        Path out = dir.resolve("out");
        assertThat(bench("--workload", "chat", "--limit", "40", "--workers", "2", "--policies", "random",
                "--nvme-gbps", "9999", "--out", out.toString())).as(err.toString()).isZero();
        String nvme = "--nvme-gbps has no effect: the run has no NVMe tier (the chat workload has none); --nvme-tokens N "
                + "gives it one";
        assertThat(err.toString().lines()).containsExactly("tierroute bench routing: note: " + nvme);
        assertThat(Files.readString(out.resolve("results.txt"))).contains("\nnote: " + nvme + "\n");

        err.getBuffer().setLength(0);
        assertThat(bench("--workload", "chat", "--limit", "40", "--workers", "2", "--policies", "random",
                "--cpu-tokens", "0", "--pcie-gbps", "0.01", "--out", dir.resolve("no-cpu").toString()))
                .as(err.toString()).isZero();
        assertThat(err.toString().lines()).containsExactly("tierroute bench routing: note: --pcie-gbps has no effect: "
                + "the run has no CPU tier (--cpu-tokens 0), and the PCIe link carries only CPU- and NVMe-tier loads");

        err.getBuffer().setLength(0);
        assertThat(bench("--workload", "nvme-overflow", "--limit", "40", "--workers", "2", "--policies", "random",
                "--nvme-gbps", "3", "--pcie-gbps", "16", "--out", dir.resolve("tiers").toString()))
                .as("both links are used: nothing to say").isZero();
        assertThat(err.toString()).isEmpty();
    }

    /** The old code printed a 27-line IOException stack trace. */
    @Test
    void aReportThatCannotBeWrittenIsOneLineNamingTheFileAndTheCause() throws Exception {
        assumeTrue(Files.exists(Path.of("/dev/full")), "a Linux /dev/full: every write to it fails as on a full disk");
        Path out = Files.createDirectories(dir.resolve("out"));
        Files.createSymbolicLink(out.resolve("results.txt"), Path.of("/dev/full"));
        assertThat(bench("--workload", "llmd-blog", "--limit", "40", "--workers", "2", "--policies", "random",
                "--out", out.toString())).isEqualTo(1);
        assertThat(err.toString()).isEqualTo("tierroute bench routing: cannot write " + out.resolve("results.txt")
                + ": No space left on device" + System.lineSeparator());

        err.getBuffer().setLength(0);
        Path logs = Files.createDirectories(dir.resolve("logs"));
        Files.createSymbolicLink(logs.resolve("requests-random-load1.csv"), Path.of("/dev/full"));
        assertThat(bench("--workload", "llmd-blog", "--limit", "40", "--workers", "2", "--policies", "random",
                "--request-logs", "--out", logs.toString())).as("a request log, written after its run").isEqualTo(1);
        assertThat(err.toString()).isEqualTo("tierroute bench routing: cannot write "
                + logs.resolve("requests-random-load1.csv") + ": No space left on device" + System.lineSeparator());
    }

    /** A sweep's summary is staged beside the reports: a failure names the file the user looks for and leaves no staging. */
    @Test
    void aSummaryThatCannotBeWrittenIsNamedAsTheUserSeesItAndItsStagingGoes() throws Exception {
        assumeTrue(Files.exists(Path.of("/dev/full")), "a Linux /dev/full: every write to it fails as on a full disk");
        Path out = Files.createDirectories(dir.resolve("sweep"));
        Path staging = Files.createDirectories(out.resolve(".summary-staging"));
        Files.createSymbolicLink(staging.resolve("summary.csv"), Path.of("/dev/full"));
        assertThat(bench("--workload", "llmd-blog", "--limit", "40", "--workers", "2", "--policies", "random",
                "--seed", "1-2", "--out", out.toString())).isEqualTo(1);
        assertThat(err.toString()).isEqualTo("tierroute bench routing: cannot write " + out.resolve("summary.csv")
                + ": No space left on device" + System.lineSeparator());
        assertThat(staging).doesNotExist();
        assertThat(Path.of("/dev/full")).exists();
    }
}
