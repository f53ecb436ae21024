package io.tierroute.sim.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutputDirectoryTest {
    @TempDir
    Path dir;

    @Test
    void aMissingOrEmptyDirectoryTakesTheReports() {
        assertThatCode(() -> OutputDirectory.check(dir.resolve("new"), SeedList.parse("1"))).doesNotThrowAnyException();
        assertThatCode(() -> OutputDirectory.check(dir, SeedList.parse("1-3"))).doesNotThrowAnyException();
    }

    @Test
    void anEarlierRunsReportsAreOverwritten() throws Exception {
        Files.writeString(dir.resolve(CsvReporter.FILE), "old");
        Files.createDirectories(SeedSweep.seedDir(dir, 2));
        Files.writeString(SeedSweep.seedDir(dir, 2).resolve(HtmlReporter.FILE), "old");
        assertThatCode(() -> OutputDirectory.check(dir, SeedList.parse("1"))).doesNotThrowAnyException();
        assertThatCode(() -> OutputDirectory.check(dir, SeedList.parse("1-3"))).doesNotThrowAnyException();
    }

    @Test
    void anEarlierRunOfAnotherShapeIsNamedAsLeftOver() throws Exception {
        // a three-seed sweep was here
        Files.writeString(dir.resolve(SummaryHtmlReporter.FILE), "old");
        Files.writeString(dir.resolve(RunParameters.FILE), "old"); // the sweep's own, which its re-run replaces
        for (long s = 1; s <= 3; s++) {
            Files.createDirectories(SeedSweep.seedDir(dir, s));
        }
        Files.writeString(dir.resolve("notes.txt"), "the user's own");
        assertThat(OutputDirectory.leftovers(dir, SeedList.parse("1")))
                .containsExactly("seed-1/", "seed-2/", "seed-3/", "summary.html");
        assertThat(OutputDirectory.leftovers(dir, SeedList.parse("1-2"))).as("seed 3 is not this sweep's")
                .containsExactly("seed-3/");
        assertThat(OutputDirectory.leftovers(dir, SeedList.parse("1-3"))).as("run.txt too is this sweep's").isEmpty();
        assertThat(OutputDirectory.leftovers(dir.resolve("none"), SeedList.parse("1"))).isEmpty();
    }

    @Test
    void requestLogsOfAnotherRunAreLeftOversAndADirectoryInTheirPlaceIsRefused() throws Exception {
        Files.writeString(dir.resolve(RequestLog.fileName("dynamo", 2)), "old");
        Files.writeString(dir.resolve(RequestLog.fileName("round-robin", 1)), "old");
        java.util.List<String> ours = java.util.List.of(RequestLog.fileName("round-robin", 1));
        assertThat(OutputDirectory.leftovers(dir, SeedList.parse("1"), ours)).containsExactly("requests-dynamo-load2.csv");
        assertThat(OutputDirectory.leftovers(dir, SeedList.parse("1"))).as("a run that writes no logs")
                .containsExactly("requests-dynamo-load2.csv", "requests-round-robin-load1.csv");
        Files.createDirectories(SeedSweep.seedDir(dir, 2));
        Files.writeString(SeedSweep.seedDir(dir, 2).resolve(RequestLog.fileName("dynamo", 2)), "old");
        assertThat(OutputDirectory.leftovers(dir, SeedList.parse("1-2"), ours)).as("a sweep's seed directories too")
                .containsExactly("requests-dynamo-load2.csv", "requests-round-robin-load1.csv",
                        "seed-2/requests-dynamo-load2.csv");

        Files.createDirectories(dir.resolve("x").resolve(RequestLog.fileName("least-loaded", 1)));
        assertThatIllegalArgumentException().isThrownBy(() -> OutputDirectory.check(dir.resolve("x"), SeedList.parse("1"),
                        java.util.List.of(RequestLog.fileName("least-loaded", 1))))
                .withMessageContaining("requests-least-loaded-load1.csv is a directory, where a request log goes");
    }

    @Test
    void aDirectoryNamedLikeAReportIsRefused() throws Exception {
        Files.createDirectories(dir.resolve("a").resolve(TableReporter.FILE));
        assertThatIllegalArgumentException().isThrownBy(() -> OutputDirectory.check(dir.resolve("a"), SeedList.parse("1")))
                .withMessage("--out " + dir.resolve("a") + ": results.txt is a directory, where a report goes; move it or "
                        + "choose another --out");
        Files.createDirectories(dir.resolve("b").resolve(SummaryCsvReporter.FILE));
        assertThatIllegalArgumentException().isThrownBy(() -> OutputDirectory.check(dir.resolve("b"), SeedList.parse("1,2")))
                .withMessageContaining("summary.csv is a directory");
        Files.createDirectories(dir.resolve("s").resolve(RunParameters.FILE));
        assertThatIllegalArgumentException().isThrownBy(() -> OutputDirectory.check(dir.resolve("s"), SeedList.parse("1,2")))
                .as("refused before the first seed, not after it").withMessageContaining("run.txt is a directory");
        Files.createDirectories(SeedSweep.seedDir(dir.resolve("c"), 7).resolve(CsvReporter.FILE));
        assertThatIllegalArgumentException().isThrownBy(() -> OutputDirectory.check(dir.resolve("c"), SeedList.parse("6-7")))
                .withMessageContaining("seed-7/results.csv is a directory");
    }

    @Test
    void aFileWhereASeedsDirectoryGoesIsRefused() throws Exception {
        Files.writeString(dir.resolve("seed-2"), "x");
        assertThatIllegalArgumentException().isThrownBy(() -> OutputDirectory.check(dir, SeedList.parse("1-2")))
                .withMessage("--out " + dir + ": seed-2 is a file, where seed 2's reports go; move it or choose another --out");
        assertThatCode(() -> OutputDirectory.check(dir, SeedList.parse("1"))).as("one seed writes no seed directory")
                .doesNotThrowAnyException();
    }

    @Test
    void aFileWhereASweepStagesItsSummaryIsRefusedBeforeAnyRun() throws Exception {
        Path staging = Files.writeString(dir.resolve(OutputDirectory.SUMMARY_STAGING), "x");
        String refused = "--out " + dir + ": .summary-staging is not a directory, where the summary is written before "
                + "it is moved into place; move it or choose another --out";
        assertThatIllegalArgumentException().isThrownBy(() -> OutputDirectory.check(dir, SeedList.parse("1-2")))
                .withMessage(refused);
        Files.delete(staging);
        Files.createSymbolicLink(staging, dir.resolve("gone"));
        assertThatIllegalArgumentException().as("a link to nothing").isThrownBy(() -> OutputDirectory.check(dir,
                SeedList.parse("1-2"))).withMessage(refused);
        assertThatCode(() -> OutputDirectory.check(dir, SeedList.parse("1"))).as("one seed writes no summary")
                .doesNotThrowAnyException();
    }

    @Test
    void aSymbolicLinkToNothingIsNamedSo() throws Exception {
        Path link = Files.createSymbolicLink(dir.resolve("dangling"), dir.resolve("missing/x"));
        assertThatIllegalArgumentException().isThrownBy(() -> OutputDirectory.check(link, SeedList.parse("1")))
                .withMessage("--out " + link + " is a symbolic link to " + dir.resolve("missing/x")
                        + ", which does not exist; create it or choose another --out");
    }

    @Test
    void anEmptyPathOrAFileIsNoOutputDirectory() throws Exception {
        assertThatIllegalArgumentException().isThrownBy(() -> OutputDirectory.check(Path.of(""), SeedList.parse("1")))
                .withMessage("--out must name a directory (got an empty path)");
        Path file = Files.writeString(dir.resolve("f"), "x");
        assertThatIllegalArgumentException().isThrownBy(() -> OutputDirectory.check(file, SeedList.parse("1")))
                .withMessage("--out must be a directory (got " + file + ", an existing file)");
    }
}
