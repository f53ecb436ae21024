package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code submit}'s check that --bootstrap answers uses the job's own client settings, the job argument
 * {@code --kafka-properties FILE}, when the file can be read here: on a broker that requires SASL a plain Admin client
 * was refused, and the check refused the submit of a job whose settings would have got in. Flink is a port nothing
 * listens on: a submit past the Kafka check ends there. A file that cannot be read here is the JobManager's: a note,
 * and the plain check.
 */
class SubmitKafkaPropertiesTest {

    @TempDir
    Path dir;

    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        err.getBuffer().setLength(0);
        return TierrouteCommand.execute(args, new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
    }

    @Test
    void theKafkaCheckUsesTheJobsKafkaPropertiesOrSaysToSkipIt() throws Exception {
        Path jar = Files.writeString(dir.resolve("job.jar"), "PK");
        try (EmbeddedKafka kafka = EmbeddedKafka.startWithSasl(new EmbeddedKafka.Sasl("admin", "admin-secret",
                Map.of("job", "job-secret")), Map.of())) {
            Path props = dir.resolve("job-kafka.properties");
            try (Writer w = Files.newBufferedWriter(props)) {
                kafka.clientProperties("job", "job-secret").store(w, "the job's client settings");
            }
            assertThat(run("submit", "--flink", "http://127.0.0.1:1", "--bootstrap", kafka.bootstrapServers(), "--jar",
                    jar.toString(), "--", "--kafka-properties", props.toString())).as(err.toString()).isEqualTo(1);
            assertThat(err.toString()).as("past the Kafka check, to Flink").contains("cannot reach the Flink cluster at "
                    + "http://127.0.0.1:1").doesNotContain("does not answer").doesNotContain("job-secret")
                    .doesNotContain("note");
        }
    }

    /**
     * The file is the JobManager's: a path the resume lines carry may not be readable here (a remote cluster, a path
     * relative to another directory). Then the check is made without client settings, as before it used the file, and
     * a note says so; it was a refusal (exit 1), so a resume line printed by 'cluster down' failed where it had passed.
     * Kafka is a port nothing listens on: the plain check's refusal shows it was made.
     */
    @Test
    void aFileOrStoreThatCannotBeReadHereIsANoteAndThePlainCheck() throws Exception {
        Path jar = Files.writeString(dir.resolve("job.jar"), "PK");
        Path elsewhere = dir.resolve("only-on-the-jobmanager.properties");
        assertThat(run("submit", "--flink", "http://127.0.0.1:1", "--bootstrap", "127.0.0.1:9", "--jar", jar.toString(),
                "--", "--kafka-properties=" + elsewhere)).as(err.toString()).isEqualTo(1);
        List<String> lines = err.toString().lines().toList();
        assertThat(lines.get(0)).isEqualTo("tierroute submit: note: the job argument --kafka-properties " + elsewhere
                + " cannot be read here (no such file or directory: " + elsewhere + "); the check that --bootstrap "
                + "answers uses no client settings (the file is the JobManager's)");
        assertThat(lines.get(1)).startsWith("tierroute submit: Kafka at 127.0.0.1:9 does not answer");

        Path store = dir.resolve("truststore-on-the-jobmanager.p12");
        Path props = Files.writeString(dir.resolve("job-kafka.properties"), "security.protocol=SSL\n"
                + "ssl.truststore.location=" + store + "\nssl.truststore.password=secret-pw\n");
        assertThat(run("submit", "--flink", "http://127.0.0.1:1", "--bootstrap", "127.0.0.1:9", "--jar", jar.toString(),
                "--", "--kafka-properties", props.toString())).as(err.toString()).isEqualTo(1);
        lines = err.toString().lines().toList();
        assertThat(lines.get(0)).isEqualTo("tierroute submit: note: the job argument --kafka-properties " + props
                + " names a store that cannot be read here: 'ssl.truststore.location' names " + store + ", which cannot "
                + "be read (no such file or directory: " + store + "); the check that --bootstrap answers uses no client "
                + "settings (the file is the JobManager's)");
        assertThat(lines.get(1)).startsWith("tierroute submit: Kafka at 127.0.0.1:9 does not answer");
        assertThat(err.toString()).doesNotContain("secret-pw");
    }
}
