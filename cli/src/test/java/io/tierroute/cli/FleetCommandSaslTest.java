package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.Topics;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tierroute fleet --command-config} on a broker that requires SASL/PLAIN and authorises with ACLs: with the
 * fleet's credentials every client of the run (the selector's loader and decisions, the fleet's producer) gets in, with
 * the ACLs its help names; without them the fleet says at once that the broker wants client settings.
 */
class FleetCommandSaslTest {

    @TempDir
    Path dir;

    private static String[] run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = TierrouteCommand.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new String[] {Integer.toString(rc), out.toString(), err.toString()};
    }

    private Path config(Properties p) throws IOException {
        Path f = dir.resolve("fleet.properties");
        try (Writer w = Files.newBufferedWriter(f)) {
            p.store(w, "the fleet's client settings");
        }
        return f;
    }

    @Test
    void theFleetRunsOnASecuredBrokerWithItsClientSettingsAndSaysWhatIsMissingWithout() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.startWithSasl(new EmbeddedKafka.Sasl("admin", "admin-secret",
                Map.of("fleet", "fleet-secret", "nosy", "nosy-secret")), Map.of())) {
            for (var s : Topics.specs()) {
                kafka.createTopic(s.name(), s.partitions(), s.configs());
            }
            for (String topic : new String[] {Topics.PARAMS, Topics.CONTROL}) {
                kafka.grant("fleet", topic, AclOperation.READ, AclOperation.DESCRIBE);
                kafka.grant("nosy", topic, AclOperation.READ, AclOperation.DESCRIBE);
            }
            for (String topic : new String[] {Topics.DECISIONS, Topics.TELEMETRY, Topics.KV_EVENTS, Topics.COMPLETIONS}) {
                kafka.grant("fleet", topic, AclOperation.WRITE, AclOperation.DESCRIBE);
            }

            String[] plain = run("fleet", "--bootstrap", kafka.bootstrapServers(), "--workload", "chat", "--limit", "10");
            assertThat(plain[0]).as(plain[1] + plain[2]).isEqualTo("1");
            assertThat(plain[2]).contains("did not list its topics")
                    .contains("pass its client settings with --command-config FILE");

            Properties wrong = kafka.clientProperties("fleet", "not-the-password");
            String[] refused = run("fleet", "--bootstrap", kafka.bootstrapServers(), "--command-config",
                    config(wrong).toString(), "--workload", "chat", "--limit", "10");
            assertThat(refused[0]).isEqualTo("1");
            assertThat(refused[2]).contains("did not authenticate the client").contains("check the client settings in")
                    .doesNotContain("not-the-password");

            // a topic the principal may not DESCRIBE is missing from the listing, but it is not said to be missing
            String[] hidden = run("fleet", "--bootstrap", kafka.bootstrapServers(), "--command-config",
                    config(kafka.clientProperties("nosy", "nosy-secret")).toString(), "--workload", "chat");
            assertThat(hidden[0]).isEqualTo("1");
            assertThat(hidden[2]).contains("did not authorise the client to describe " + Topics.DECISIONS)
                    .contains("needs DESCRIBE").doesNotContain("has no topic").doesNotContain("nosy-secret");

            Properties transactional = kafka.clientProperties("fleet", "fleet-secret");
            transactional.put("transactional.id", "mine");
            String[] reserved = run("fleet", "--bootstrap", kafka.bootstrapServers(), "--command-config",
                    config(transactional).toString(), "--workload", "chat");
            assertThat(reserved[0]).as("a key the fleet sets itself is a usage error").isEqualTo("2");
            assertThat(reserved[2]).contains("'transactional.id' is set by the fleet itself").doesNotContain("fleet-secret");

            String[] r = run("fleet", "--bootstrap", kafka.bootstrapServers(), "--command-config",
                    config(kafka.clientProperties("fleet", "fleet-secret")).toString(), "--workload", "chat", "--limit",
                    "30", "--workers", "2", "--time-scale", "200", "--status-interval", "200ms");
            assertThat(r[0]).as(r[1] + r[2]).isEqualTo("0");
            assertThat(r[1] + r[2]).doesNotContain("fleet-secret");
            assertThat(r[1]).contains("requests: 30 routed, 30 completed, 0 failed")
                    .contains("decisions published: 30 acknowledged of 30 offered");
            Properties admin = kafka.clientProperties("admin", "admin-secret");
            assertThat(endOffset(kafka.bootstrapServers(), admin, Topics.COMPLETIONS)).isEqualTo(30);
            assertThat(endOffset(kafka.bootstrapServers(), admin, Topics.DECISIONS)).isEqualTo(30);
        }
    }

    private static long endOffset(String bootstrap, Properties client, String topic) {
        Properties p = new Properties();
        p.putAll(client);
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            var parts = c.partitionsFor(topic).stream().map(i -> new TopicPartition(topic, i.partition())).toList();
            return c.endOffsets(parts).values().stream().mapToLong(Long::longValue).sum();
        }
    }
}
