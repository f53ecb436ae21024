package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code submit} can tell without Flink is refused before asking it: Flink (here a port nothing listens on) is
 * never reached, so the old code ended in a connection error (exit 1) or Flink's own words.
 */
class SubmitLocalChecksTest {

    private static final String FLINK = "http://127.0.0.1:1";

    @TempDir
    Path dir;

    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        err.getBuffer().setLength(0);
        return TierrouteCommand.execute(args, new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
    }

    @Test
    void aJobIdThatIsNot32HexDigitsIsAUsageError() {
        assertThat(run("submit", "--flink", FLINK, "--savepoint", dir.toString(), "--job-id", "deadbeef")).isEqualTo(2);
        assertThat(err.toString()).startsWith("--job-id must be a Flink job id, 32 hex digits as Flink's web UI and "
                + "REST API show it (got 'deadbeef')");
        assertThat(run("submit", "--flink", FLINK, "--bootstrap", "127.0.0.1:9", "--ignore-job", "a".repeat(32),
                "--ignore-job", "nothex")).isEqualTo(2);
        assertThat(err.toString()).startsWith("--ignore-job must be a Flink job id, 32 hex digits").contains("'nothex'");
    }

    @Test
    void aSavepointTargetThatIsAnExistingFileIsRefused() throws Exception {
        Path file = Files.writeString(dir.resolve("sp"), "x");
        assertThat(run("submit", "--flink", FLINK, "--savepoint", file.toString())).isEqualTo(2);
        assertThat(err.toString()).startsWith("--savepoint " + file + " is an existing file: give a directory to write "
                + "the savepoint into").doesNotContain("Exception");
    }

    /** An empty path would be made absolute as the caller's working directory and sent to Flink as the savepoint. */
    @Test
    void anEmptySavepointPathIsAUsageError() {
        assertThat(run("submit", "--flink", FLINK, "--savepoint", "")).isEqualTo(2);
        assertThat(err.toString()).startsWith("--savepoint needs a path, got ''");
        assertThat(run("submit", "--flink", FLINK, "--bootstrap", "127.0.0.1:9", "--from-savepoint", " ")).isEqualTo(2);
        assertThat(err.toString()).startsWith("--from-savepoint needs a path, got ' '");
    }

    /** A submit's flags beside --savepoint were ignored (--bootstrap, --no-kafka-check): refused, naming the flag. */
    @Test
    void aSavepointStopRefusesASubmitsFlagsNamingIt() {
        for (String[] extra : new String[][] {{"--bootstrap", "127.0.0.1:9"}, {"--no-kafka-check"}, {"--jar", "x.jar"}}) {
            String[] args = java.util.stream.Stream.concat(java.util.stream.Stream.of("submit", "--flink", FLINK,
                    "--savepoint", dir.toString()), java.util.Arrays.stream(extra)).toArray(String[]::new);
            assertThat(run(args)).as(extra[0]).isEqualTo(2);
            assertThat(err.toString()).as(extra[0]).startsWith("--savepoint stops a job; it takes no " + extra[0]
                    + " (a flag of a submit)");
        }
        assertThat(run("submit", "--flink", FLINK, "--savepoint", dir.toString(), "--", "--parallelism", "1"))
                .isEqualTo(2);
        assertThat(err.toString()).startsWith("--savepoint stops a job; it takes no job arguments (got --parallelism 1)");
    }

    @Test
    void aWellFormedJobIdAndADirectoryPassToFlink() {
        assertThat(run("submit", "--flink", FLINK, "--savepoint", dir.toString(), "--job-id",
                "0123456789ABCDEF0123456789abcdef")).as("Flink is down: exit 1, not a usage error").isEqualTo(1);
        assertThat(err.toString()).doesNotContain("--job-id").doesNotContain("--savepoint");
    }
}
