package io.tierroute.cli;

import io.tierroute.dashboards.control.ControlFence;
import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.Topics;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.acl.AclOperation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pin / rollback on a broker that requires SASL/PLAIN and authorises with ACLs (the recipe of
 * deploy/README.md): the operator may write tierroute.control, the reader may only read.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SnapshotsCommandSaslTest {

    private EmbeddedKafka kafka;
    private Properties admin;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @TempDir
    Path dir;

    @BeforeAll
    void start() throws Exception {
        kafka = EmbeddedKafka.startWithSasl(new EmbeddedKafka.Sasl("admin", "admin-secret",
                Map.of("operator", "operator-secret", "reader", "reader-secret")), Map.of());
        admin = kafka.clientProperties("admin", "admin-secret");
        SnapshotsFixtures.createTopics(kafka);
        for (String topic : new String[] {Topics.PARAMS, Topics.CONTROL}) {
            kafka.grant("operator", topic, AclOperation.READ, AclOperation.DESCRIBE);
            kafka.grant("reader", topic, AclOperation.READ, AclOperation.DESCRIBE);
        }
        kafka.grant("operator", Topics.CONTROL, AclOperation.WRITE);
        // A write fences the scope's other writers through a transactional id (ControlFence).
        kafka.grantTransactionalIds("operator", ControlFence.TRANSACTIONAL_ID_PREFIX, AclOperation.WRITE,
                AclOperation.DESCRIBE);
        try (KafkaProducer<byte[], byte[]> p = SnapshotsFixtures.producer(kafka.bootstrapServers(), admin)) {
            SnapshotsFixtures.publishHistory(p, "default");
        }
    }

    @AfterAll
    void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    private Path config(String name, Properties p) throws IOException {
        Path f = dir.resolve(name + ".properties");
        try (Writer w = Files.newBufferedWriter(f)) {
            p.store(w, name);
        }
        return f;
    }

    private int run(String... args) {
        return SnapshotsFixtures.runCli(out, err, kafka.bootstrapServers(), args, "--timeout", "5");
    }

    @Test
    void rollbackIsRefusedWithoutTheOperatorsCredentialsAndAcceptedWithThem() throws Exception {
        Path reader = config("reader", kafka.clientProperties("reader", "reader-secret"));
        Path operator = config("operator", kafka.clientProperties("operator", "operator-secret"));

        // a reader may list
        assertThat(run("snapshots", "list", "--command-config", reader.toString())).as(err.toString()).isZero();
        assertThat(out.toString()).contains("active 3, not pinned");

        // no credentials at all: the SASL listener does not answer a plaintext client
        assertThat(run("snapshots", "rollback", "--reason", "r")).isEqualTo(1);
        assertThat(err.toString()).contains("broker unreachable").contains("--command-config");
        System.out.println("---- rollback, no credentials ----\n" + err);

        // the reader's credentials: read fine, the write is refused by the broker
        assertThat(run("snapshots", "rollback", "--reason", "regression", "--command-config", reader.toString()))
                .isEqualTo(1);
        assertThat(err.toString()).contains("refused: the broker did not authorise User:reader to write "
                + "tierroute.control").contains("--command-config FILE").contains("Nothing was written");
        System.out.println("---- rollback as reader ----\n" + err);

        // a wrong password
        Path wrong = config("wrong", kafka.clientProperties("operator", "guess"));
        assertThat(run("snapshots", "pin", "2", "--reason", "x", "--command-config", wrong.toString())).isEqualTo(1);
        assertThat(err.toString()).contains("refused: the broker at").contains("did not authenticate User:operator");

        assertThat(SnapshotsFixtures.controlRecords(kafka.bootstrapServers(), admin, "default")).isEmpty();
        assertThat(SnapshotsFixtures.activeVersion(kafka.bootstrapServers(), admin, "default")).isEqualTo(3);

        // the operator
        assertThat(run("snapshots", "rollback", "--actor", "oncall", "--reason", "regression",
                "--command-config", operator.toString())).as(err.toString()).isZero();
        assertThat(out.toString()).contains("rollback of scope 'default' from 3 to version 2")
                .contains("active version 3 -> 2, pinned to 2");
        System.out.println("---- rollback as operator ----\n" + out);
        assertThat(SnapshotsFixtures.controlRecords(kafka.bootstrapServers(), admin, "default")).singleElement()
                .satisfies(c -> {
                    assertThat(c.getActor()).as("the name given and the principal the broker authenticated")
                            .isEqualTo("oncall (User:operator)");
                    assertThat(c.getReason()).isEqualTo("regression");
                    assertThat(c.getVersion()).isEqualTo(2L);
                });
        assertThat(SnapshotsFixtures.activeVersion(kafka.bootstrapServers(), admin, "default")).isEqualTo(2);
    }
}
