package io.tierroute.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotStatus;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AclOperation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job against a broker that requires SASL and ACLs, its client settings from {@code --kafka-properties}: with only
 * the permissions deploy/README.md lists for it, it reads its inputs, commits its offsets and publishes an accepted
 * snapshot. A properties file that would override what the job sets itself is refused, naming the setting.
 */
class FittingJobSaslTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = FittingJobFixture.miniCluster();

    private static final String PASSWORD = "fitter-secret-17";
    private final List<JobClient> jobs = new ArrayList<>();
    private TestKafka kafka;
    @TempDir
    Path tmp;

    @AfterEach
    void stop() throws Exception {
        try {
            TestJobs.cancelRunning(jobs);
        } finally {
            if (kafka != null) {
                kafka.close();
            }
        }
    }

    private Path propertiesFile(Properties p) throws Exception {
        Path file = tmp.resolve("job-kafka.properties");
        try (Writer w = Files.newBufferedWriter(file)) {
            p.store(w, "the fitting job's Kafka client settings");
        }
        return file;
    }

    @Test
    void readsAndPublishesWithTheCredentialsOfItsPropertiesFile() throws Exception {
        EmbeddedKafka broker = EmbeddedKafka.startWithSasl(new EmbeddedKafka.Sasl("admin", "admin-secret",
                Map.of("fitter", PASSWORD)), Map.of());
        kafka = new TestKafka(broker, broker.clientProperties("admin", "admin-secret"), false);
        JobSettings s = TestJobs.settings(kafka, tmp, "sasl").toBuilder()
                .set("kafka-properties", propertiesFile(broker.clientProperties("fitter", PASSWORD)).toString()).build();
        for (String in : List.of(Topics.TELEMETRY, Topics.DECISIONS, Topics.COMPLETIONS, Topics.CONTROL, Topics.PARAMS)) {
            broker.grant("fitter", in, AclOperation.READ, AclOperation.DESCRIBE);
        }
        for (String out : List.of(Topics.PARAMS, Topics.DEAD_LETTER)) {
            broker.grant("fitter", out, AclOperation.WRITE, AclOperation.DESCRIBE);
        }
        broker.grantGroup("fitter", s.groupId(), AclOperation.READ);
        broker.grantTransactionalIds("fitter", s.transactionalIdPrefix(), AclOperation.WRITE, AclOperation.DESCRIBE);

        Workload w = new Workload(7, "default", System.currentTimeMillis() - Duration.ofMinutes(40).toMillis(), 0.05);
        kafka.send(w.telemetry(60));
        kafka.send(w.requests(3_000));
        TestJobs.start(s, null, jobs);

        ParameterSnapshot accepted = kafka.awaitSnapshot(p -> p.getStatus() == SnapshotStatus.ACCEPTED
                && p.getAlphaP().getSamples() == w.requests(), Duration.ofSeconds(90), "with every row fitted");
        assertThat(accepted.getProducer().toString()).isEqualTo(s.jobName());
        // Offsets are committed to the job's group on checkpoints (a refused commit would only be logged).
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        Map<?, ?> committed = Map.of();
        while (committed.isEmpty() && System.nanoTime() < deadline) {
            try (Admin admin = broker.admin()) {
                committed = admin.listConsumerGroupOffsets(s.groupId()).partitionsToOffsetAndMetadata().get();
            }
            Thread.sleep(200);
        }
        assertThat(committed).as("offsets committed by group " + s.groupId()).isNotEmpty();
    }

    @Test
    void aPropertiesFileThatSetsWhatTheJobSetsIsRefused() throws Exception {
        Properties p = new Properties();
        p.put("security.protocol", "SASL_SSL");
        p.put("isolation.level", "read_uncommitted");
        p.put("group.id", "elsewhere");
        JobSettings s = JobSettings.builder().set("kafka-properties", propertiesFile(p).toString()).build();
        assertThatThrownBy(() -> KafkaWiring.sources(s)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sets group.id, isolation.level, which the job sets itself");

        JobSettings missing = JobSettings.builder().set("kafka-properties", tmp.resolve("nope").toString()).build();
        assertThatThrownBy(() -> KafkaWiring.paramsSink(missing)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--kafka-properties " + tmp.resolve("nope") + " cannot be read where the job's "
                        + "main runs (the JobManager)");

        JobSettings none = JobSettings.builder().build();
        assertThat(KafkaWiring.clientProperties(none)).isEmpty();
    }
}
