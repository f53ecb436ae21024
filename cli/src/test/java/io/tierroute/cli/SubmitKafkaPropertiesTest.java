package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code submit}'s check that --bootstrap answers uses the job's own client settings, the job argument
 * {@code --kafka-properties FILE}, when the file can be read here: on a broker that requires SASL a plain Admin client
 * was refused, and the check refused the submit of a job whose settings would have got in. Flink is a port nothing
 * listens on: a submit past the Kafka check ends there.
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
                    + "http://127.0.0.1:1").doesNotContain("does not answer").doesNotContain("job-secret");

            Path elsewhere = dir.resolve("only-on-the-jobmanager.properties");
            assertThat(run("submit", "--flink", "http://127.0.0.1:1", "--bootstrap", kafka.bootstrapServers(), "--jar",
                    jar.toString(), "--", "--kafka-properties=" + elsewhere)).as(err.toString()).isEqualTo(1);
            assertThat(err.toString().strip()).isEqualTo("tierroute submit: the job argument --kafka-properties "
                    + elsewhere + " cannot be read here (no such file or directory: " + elsewhere + "), so the check "
                    + "that --bootstrap answers cannot use its settings; --no-kafka-check skips the check");
        }
    }
}
