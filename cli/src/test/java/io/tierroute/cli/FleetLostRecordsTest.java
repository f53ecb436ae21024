package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.Topics;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fleet run whose records or decisions did not all reach Kafka is no clean stop: it exits 1 and its stop line says
 * how many were lost. Before, it exited 0 whatever its publishers lost. The losses here come from ACLs (a principal that
 * may describe a topic but not write to it) and from a quota that throttles the decisions past the stop.
 */
class FleetLostRecordsTest {

    @TempDir
    Path dir;

    private String[] run(Path config, EmbeddedKafka kafka) {
        return run(config, kafka, "200");
    }

    private String[] run(Path config, EmbeddedKafka kafka, String timeScale) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = TierrouteCommand.execute(new String[] {"fleet", "--bootstrap", kafka.bootstrapServers(), "--command-config",
                config.toString(), "--workload", "chat", "--limit", "30", "--workers", "2", "--time-scale", timeScale,
                "--status-interval", "200ms"}, new PrintWriter(out, true), new PrintWriter(err, true));
        return new String[] {Integer.toString(rc), out.toString(), err.toString()};
    }

    private Path config(EmbeddedKafka kafka, String user) throws Exception {
        Path f = dir.resolve(user + ".properties");
        try (Writer w = Files.newBufferedWriter(f)) {
            kafka.clientProperties(user, user + "-secret").store(w, null);
        }
        return f;
    }

    @Test
    void lostFleetRecordsOrDecisionsMakeTheStopAFailureThatSaysHowMany() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.startWithSasl(new EmbeddedKafka.Sasl("admin", "admin-secret",
                Map.of("nocompletions", "nocompletions-secret", "nodecisions", "nodecisions-secret")), Map.of())) {
            for (var s : Topics.specs()) {
                kafka.createTopic(s.name(), s.partitions(), s.configs());
            }
            for (String user : new String[] {"nocompletions", "nodecisions"}) {
                for (String topic : new String[] {Topics.PARAMS, Topics.CONTROL}) {
                    kafka.grant(user, topic, AclOperation.READ, AclOperation.DESCRIBE);
                }
                for (String topic : new String[] {Topics.DECISIONS, Topics.TELEMETRY, Topics.KV_EVENTS, Topics.COMPLETIONS}) {
                    boolean writes = !(user.equals("nocompletions") && topic.equals(Topics.COMPLETIONS))
                            && !(user.equals("nodecisions") && topic.equals(Topics.DECISIONS));
                    if (writes) {
                        kafka.grant(user, topic, AclOperation.WRITE, AclOperation.DESCRIBE);
                    } else {
                        kafka.grant(user, topic, AclOperation.DESCRIBE);
                    }
                }
            }

            String[] r = run(config(kafka, "nocompletions"), kafka);
            assertThat(r[0]).as(r[1] + r[2]).isEqualTo("1");
            assertThat(r[1]).containsPattern("tierroute fleet: stopping \\(the fleet replayed every request; \\d+ fleet "
                    + "records? did not reach Kafka \\(see the summary\\)\\)").contains(", 0 completions");

            r = run(config(kafka, "nodecisions"), kafka);
            assertThat(r[0]).as(r[1] + r[2]).isEqualTo("1");
            assertThat(r[1]).contains("tierroute fleet: stopping (the fleet replayed every request; 30 decisions did not "
                    + "reach Kafka (see the summary))");
        }
    }

    /**
     * Decisions the broker has not acknowledged when the stop's 5 s wait for them ends are not counted as delivered: the
     * run exits 1 and says how many. Before, only records that failed or were dropped counted, and a run whose
     * decisions were still on their way passed as clean. Here the broker throttles the selector's decision producer
     * (a quota of 1 byte/s on its client id): it acknowledges the first request, and the producer waits out the
     * throttle, minutes, before sending the rest, long past the wait. (A long linger held them so before the stop had
     * them sent at once:
     * {@link FleetCommandTest#aLongLingerRunsAndStopsCleanAndSettingsKafkaRefusesAreNamedWithItsReason}.)
     */
    @Test
    void decisionsStillUnacknowledgedAfterTheStopsWaitMakeTheStopAFailure() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            for (var s : Topics.specs()) {
                kafka.createTopic(s.name(), s.partitions(), s.configs());
            }
            try (Admin admin = kafka.admin()) {
                admin.alterClientQuotas(List.of(new ClientQuotaAlteration(
                        new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, "tierroute-selector-decisions")),
                        List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1.0))))).all().get();
            }
            Path config = Files.writeString(dir.resolve("plain.properties"), "# no settings: a plain broker\n");
            // 36 s simulated over ~4 s: decisions leave in several requests, the first acknowledged before the rest
            String[] r = run(config, kafka, "10");
            assertThat(r[0]).as(r[1] + r[2]).isEqualTo("1");
            assertThat(r[1]).containsPattern("tierroute fleet: stopping \\(the fleet replayed every request; [1-9]\\d* "
                    + "decisions? still unacknowledged at the stop \\(see the summary\\)\\)")
                    .containsPattern("decisions published: \\d+ acknowledged of 30 offered \\(0 dropped or failed, "
                            + "[1-9]\\d* still in flight\\)")
                    .contains("(0 failed, 0 dropped at the close)");
        }
    }
}
