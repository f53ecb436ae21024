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

    /**
     * A --jar that cannot be read is a usage error naming the flag and the reason, before Kafka or Flink are asked:
     * it was "a defect of tierroute" with a stack trace once the upload read it. Mode 000 where the tests are not root;
     * else /proc/self/mem, a regular file whose read fails for root too.
     */
    @Test
    void anUnreadableJarIsAUsageErrorNamingTheFlag() throws Exception {
        Path jar = Files.writeString(dir.resolve("job.jar"), "PK");
        Files.setPosixFilePermissions(jar, java.nio.file.attribute.PosixFilePermissions.fromString("---------"));
        if (Files.isReadable(jar)) { // root
            jar = Path.of("/proc/self/mem");
            org.junit.jupiter.api.Assumptions.assumeTrue(Files.isRegularFile(jar), "no unreadable file to give");
        }
        assertThat(run("submit", "--flink", FLINK, "--bootstrap", "127.0.0.1:9", "--jar", jar.toString())).isEqualTo(2);
        assertThat(err.toString()).startsWith("--jar " + jar + ": cannot read it (")
                .doesNotContain("defect").doesNotContain("\tat ").doesNotContain("Kafka");
    }

    /** Exactly http and https, in any case: httpx:// ended in a defect's trace, HTTP:// was refused, HOST:PORT a URISyntaxException. */
    @Test
    void theFlinkAddressIsHttpOrHttpsWithAHost() throws Exception {
        for (String bad : new String[] {"httpx://127.0.0.1:1", "127.0.0.1:8081", "localhost:8081"}) {
            assertThat(run("submit", "--flink", bad, "--bootstrap", "127.0.0.1:9")).as(bad).isEqualTo(2);
            assertThat(err.toString()).as(bad).contains("e.g. http://HOST:8081").contains(bad)
                    .doesNotContain("Exception").doesNotContain("defect").doesNotContain("\tat ");
            assertThat(err.toString().lines().findFirst().orElse("")).as(bad).startsWith("--flink");
        }
        // upper case passes the address check: the refusal is Kafka's, which is asked next
        assertThat(run("submit", "--flink", "HTTP://127.0.0.1:1", "--bootstrap", "127.0.0.1:9", "--jar",
                writeJar().toString())).isEqualTo(1);
        assertThat(err.toString()).startsWith("tierroute submit: Kafka at 127.0.0.1:9 does not answer");
    }

    /**
     * A bad job argument is refused before anything is asked or uploaded, naming the job flag, as the demo does: it
     * came back through Flink after the 29 MB upload.
     */
    @Test
    void aBadJobArgumentIsAUsageErrorBeforeAnyUpload() throws Exception {
        String jar = writeJar().toString();
        assertThat(run("submit", "--flink", FLINK, "--bootstrap", "127.0.0.1:9", "--jar", jar, "--", "--parallelism",
                "0")).isEqualTo(2);
        assertThat(err.toString()).startsWith("job argument: --parallelism must be >= 1, got 0 ('tierroute submit "
                + "--job-help' lists every job flag)").doesNotContain("Kafka");
        assertThat(run("submit", "--flink", FLINK, "--bootstrap", "127.0.0.1:9", "--jar", jar, "--", "--no-such-flag",
                "1")).isEqualTo(2);
        assertThat(err.toString()).startsWith("job argument: unknown flag --no-such-flag; known: ");
    }

    /**
     * A --kafka-properties file that sets what the job sets itself (group.id here) is refused before anything is asked
     * or uploaded, as the job refuses it (KafkaWiring.clientProperties): it passed submit's checks and the job's main
     * refused it after the 29 MB upload. Kafka is a port nothing listens on: a check that reached it would say so.
     */
    @Test
    void aKafkaPropertiesFileSettingTheJobsOwnKeysIsAUsageErrorBeforeAnyUpload() throws Exception {
        Path props = Files.writeString(dir.resolve("job-kafka.properties"), "security.protocol=SASL_PLAINTEXT\n"
                + "group.id=mine\n");
        assertThat(run("submit", "--flink", FLINK, "--bootstrap", "127.0.0.1:9", "--jar", writeJar().toString(), "--",
                "--kafka-properties", props.toString())).as(err.toString()).isEqualTo(2);
        assertThat(err.toString()).startsWith("job argument: --kafka-properties " + props + " sets group.id, which the "
                + "job sets itself").doesNotContain("Kafka at").doesNotContain("cannot reach the Flink");
        assertThat(run("submit", "--flink", FLINK, "--bootstrap", "127.0.0.1:9", "--no-kafka-check", "--jar",
                writeJar().toString(), "--", "--kafka-properties", props.toString())).as("without the Kafka check too")
                .isEqualTo(2);
        assertThat(err.toString()).startsWith("job argument: --kafka-properties " + props + " sets group.id");
    }

    private Path writeJar() throws java.io.IOException {
        return Files.writeString(dir.resolve("readable.jar"), "PK");
    }
}
