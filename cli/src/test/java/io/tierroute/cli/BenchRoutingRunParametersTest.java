package io.tierroute.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A `bench routing` run's reports say how it was run: results.txt under its title, report.html in a section, run.txt
 * beside results.csv, whose own lines stay the header and the rows its scripts read.
 */
class BenchRoutingRunParametersTest {

    @TempDir
    Path dir;

    @Test
    void theReportsNameTheCommandTheSeedTheWorkloadAndTheTiers() throws Exception {
        Path out = dir.resolve("out");
        String[] args = {"bench", "routing", "--workload", "llmd-blog", "--limit", "40", "--workers", "2",
                "--policies", "random", "--seed", "7", "--warm-up", "0.5", "--cpu-tokens", "4096", "--pcie-gbps", "16",
                "--out", out.toString()};
        StringWriter err = new StringWriter();
        assertThat(TierrouteCommand.execute(args, new PrintWriter(new StringWriter(), true), new PrintWriter(err, true)))
                .as(err.toString()).isZero();

        List<String> expected = List.of(
                "command: tierroute bench routing --workload llmd-blog --limit 40 --workers 2 --policies random --seed 7 "
                        + "--warm-up 0.5 --cpu-tokens 4096 --pcie-gbps 16 --out " + out,
                "workload: llmd-blog",
                "seed: 7",
                "requests: 40 (--limit 40)",
                "workers: 2",
                "loads: 1",
                "policies: random",
                "warm-up: 0.5 of the requests (fitted policies)",
                "HBM: 262144 tokens per worker",
                "CPU tier: 4096 tokens per worker, PCIe link 16 GB/s",
                "NVMe tier: none");
        assertThat(Files.readAllLines(out.resolve("run.txt"))).isEqualTo(expected);
        String results = Files.readString(out.resolve("results.txt"));
        assertThat(results).startsWith("tierroute bench routing: llmd-blog, 2 workers\n" + String.join("\n", expected)
                + "\n\nload 1.00\n");
        assertThat(Files.readString(out.resolve("report.html"))).contains("<h2>Run</h2><pre class=\"run\">"
                + "command: tierroute bench routing --workload llmd-blog", "\nseed: 7\n", "\nworkload: llmd-blog\n");
        List<String> csv = Files.readAllLines(out.resolve("results.csv"));
        assertThat(csv).as("a header and one row: nothing csv.DictReader would take for either").hasSize(2);
        assertThat(csv.get(0)).startsWith("policy,version,load,requests,");
        assertThat(csv.get(1)).startsWith("random,");
    }

    @Test
    void aTraceIsNamedByItsPathAndAnOptionWithoutEffectIsRecorded() throws Exception {
        Path trace = Files.writeString(dir.resolve("t.jsonl"), """
                {"timestamp": 0, "input_length": 1100, "output_length": 10, "hash_ids": [0, 1, 2]}
                {"timestamp": 5, "input_length": 1600, "output_length": 20, "hash_ids": [0, 1, 3, 4]}
                """);
        Path out = dir.resolve("trace");
        String[] args = {"bench", "routing", "--trace", trace.toString(), "--workers", "2", "--policies", "random",
                "--nvme-gbps", "3", "--out", out.toString()};
        StringWriter err = new StringWriter();
        assertThat(TierrouteCommand.execute(args, new PrintWriter(new StringWriter(), true), new PrintWriter(err, true)))
                .as(err.toString()).isZero();
        assertThat(Files.readAllLines(out.resolve("run.txt"))).contains("trace: " + trace, "seed: 1",
                "note: --nvme-gbps has no effect: the run has no NVMe tier (the default fleet has none); --nvme-tokens N "
                        + "gives it one");
    }
}
