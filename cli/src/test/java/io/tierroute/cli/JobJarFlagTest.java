package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierroute.jobs.WriterIdentity;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The submit lines printed to paste ({@code cluster up}'s next step, the resume lines) name the job jar when
 * {@code submit} without {@code --jar} would not find it: outside a checkout they failed on the default path.
 */
class JobJarFlagTest {

    @TempDir
    Path dir;

    @Test
    void noJarFlagWhereSubmitFindsTheJarAPlaceholderWhereItDoesNot() throws Exception {
        Path found = Files.write(dir.resolve("tierroute-streaming-jobs-1.0-job.jar"), new byte[] {1});
        assertThat(JobJarFlag.forPaste(found)).isEmpty();
        assertThat(JobJarFlag.forPaste(dir.resolve("missing.jar")))
                .isEqualTo(" --jar PATH/TO/tierroute-streaming-jobs-job.jar");
        assertThat(JobJarFlag.forPaste(dir)).as("a directory is no jar").startsWith(" --jar ");
    }

    /** After a version bump without mvn clean both jars sit in target/: submit names them instead of taking one. */
    @Test
    void severalJobJarsAreNamedNotChosenByChance() throws Exception {
        assertThat(SubmitCommand.jobJarIn(dir)).isEmpty();
        Path one = Files.write(dir.resolve("tierroute-streaming-jobs-0.2.0-job.jar"), new byte[] {1});
        Files.write(dir.resolve("tierroute-streaming-jobs-0.2.0.jar"), new byte[] {1}); // the plain jar: not the job's
        assertThat(SubmitCommand.jobJarIn(dir)).contains(one);
        Files.write(dir.resolve("tierroute-streaming-jobs-0.1.0-job.jar"), new byte[] {1});
        assertThatThrownBy(() -> SubmitCommand.jobJarIn(dir)).isInstanceOf(IllegalStateException.class)
                .hasMessage("several job jars in " + dir + ": tierroute-streaming-jobs-0.1.0-job.jar, "
                        + "tierroute-streaming-jobs-0.2.0-job.jar; pass the one to submit with --jar PATH, or remove the "
                        + "stale ones (mvn clean)");
    }

    @Test
    void theNextStepOfClusterUpAndTheResumeLineCarryIt() {
        String flag = JobJarFlag.forPaste(dir.resolve("missing.jar"));
        assertThat(ClusterCommand.nextStep(URI.create("http://127.0.0.1:8081"), "127.0.0.1:9092", flag))
                .isEqualTo("tierroute submit --flink http://127.0.0.1:8081 --bootstrap 127.0.0.1:9092 --jar "
                        + JobJarFlag.PLACEHOLDER);
        assertThat(ClusterCommand.nextStep(URI.create("http://127.0.0.1:8081"), "127.0.0.1:9092", ""))
                .isEqualTo("tierroute submit --flink http://127.0.0.1:8081 --bootstrap 127.0.0.1:9092");
        Map<String, String> identity = Map.of(WriterIdentity.BOOTSTRAP_SERVERS, "k:9092", WriterIdentity.JOB_NAME, "fit it");
        assertThat(ResumeCommand.of(URI.create("http://f:8081"), identity, List.of(), "/sp/savepoint-1", flag))
                .isEqualTo("tierroute submit --flink http://f:8081 --bootstrap k:9092 --jar " + JobJarFlag.PLACEHOLDER
                        + " --from-savepoint /sp/savepoint-1 -- --job-name 'fit it'");
        Map<String, String> own = Map.of(WriterIdentity.BOOTSTRAP_SERVERS, "k:9092", WriterIdentity.JOB_NAME, "fitB",
                WriterIdentity.GROUP_ID, "grpB", WriterIdentity.TRANSACTIONAL_ID_PREFIX, "txB");
        assertThat(ResumeCommand.of(URI.create("http://f:8081"), own, List.of(), "/sp/savepoint-2", ""))
                .as("a group and prefix of its own go with the job, or it resumes under the defaults'")
                .isEqualTo("tierroute submit --flink http://f:8081 --bootstrap k:9092 --from-savepoint /sp/savepoint-2"
                        + " -- --job-name fitB --group-id grpB --transactional-id-prefix txB");
        Map<String, String> defaults = Map.of(WriterIdentity.JOB_NAME, "fitC", WriterIdentity.GROUP_ID,
                "tierroute-fitting-job", WriterIdentity.TRANSACTIONAL_ID_PREFIX, "tierroute-params");
        assertThat(ResumeCommand.of(URI.create("http://f:8081"), defaults, List.of(), "/sp/3", ""))
                .endsWith("-- --job-name fitC");
        Map<String, String> secured = Map.of(WriterIdentity.BOOTSTRAP_SERVERS, "k:9092", WriterIdentity.JOB_NAME, "fitD",
                WriterIdentity.KAFKA_PROPERTIES, "/etc/kafka client.properties");
        assertThat(ResumeCommand.of(URI.create("http://f:8081"), secured, List.of(), "/tmp/my cluster/savepoint-4", ""))
                .as("the client settings' file goes with the job; a path with a space stays one word")
                .isEqualTo("tierroute submit --flink http://f:8081 --bootstrap k:9092 --from-savepoint "
                        + "'/tmp/my cluster/savepoint-4' -- --job-name fitD --kafka-properties '/etc/kafka client.properties'");
        assertThat(ResumeCommand.of(URI.create("http://f:8081"), Map.of(), List.of(), "/sp/savepoint-1", ""))
                .isEqualTo("tierroute submit --flink http://f:8081 --bootstrap HOST:PORT --from-savepoint /sp/savepoint-1");
    }
}
