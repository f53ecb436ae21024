package io.tierroute.cli;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.Topics;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The snapshots commands when a scope has more versions than a read keeps in its history (10,000 by default; 3 here,
 * so that the topic holds a few more instead of 10,000 more): every version still on the topic can be shown, diffed,
 * pinned and rolled back to, and {@code list} counts what the topic holds and says what it leaves out. A real embedded
 * broker; every test has its own scope.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SnapshotsVersionWindowTest {

    private static final int WINDOW = 3;

    private EmbeddedKafka kafka;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @BeforeAll
    void start() throws Exception {
        kafka = EmbeddedKafka.start();
        SnapshotsFixtures.createTopics(kafka);
        try (KafkaProducer<byte[], byte[]> p = SnapshotsFixtures.producer(kafka.bootstrapServers(), new Properties())) {
            for (String scope : List.of("list", "show", "pin", "trimmed")) {
                for (long v = 1; v <= 8; v++) {
                    SnapshotsFixtures.publish(p, SnapshotsFixtures.accepted(scope, v).build());
                }
            }
            for (long v = 1; v <= 2; v++) { // what a trim writes: the versions are no longer on the topic
                p.send(new ProducerRecord<>(Topics.PARAMS, Topics.paramsKey("trimmed", v).getBytes(StandardCharsets.UTF_8),
                        null)).get(30, TimeUnit.SECONDS);
            }
        }
    }

    @AfterAll
    void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    /** {@code tierroute snapshots ARGS --bootstrap B}, its reads keeping the newest {@value #WINDOW} versions per scope. */
    private int run(String... args) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        CommandLine cl = TierrouteCommand.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        SnapshotsCommand.Base command = cl.getSubcommands().get("snapshots").getSubcommands().get(args[1]).getCommand();
        command.conn.versionWindow = WINDOW;
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--bootstrap", kafka.bootstrapServers()));
        return cl.execute(all.toArray(String[]::new));
    }

    @Test
    void listCountsTheVersionsOnTheTopicAndSaysWhichItCannotList() {
        assertThat(run("snapshots", "list", "--scope", "list")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("scope list: 8 versions (versions 1..8), active 8, not pinned")
                .containsPattern("(?m)^6 +accepted").doesNotContainPattern("(?m)^5 +accepted")
                .contains("(5 older versions not shown: the command reads the newest 3 versions of a scope; "
                        + "'snapshots show VERSION' shows any older one)");
        assertThat(run("snapshots", "list", "--scope", "list", "-n", "0")).as(err.toString()).isZero();
        assertThat(out.toString()).as("'all' is all the read keeps, and says so")
                .contains("(5 older versions not shown: the command reads the newest 3 versions of a scope");
        assertThat(run("snapshots", "list", "--scope", "list", "-n", "2")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("(6 older versions not shown; --limit 0 lists the newest 3, as many as the "
                + "command reads per scope, and 'snapshots show VERSION' shows any older one)");
    }

    @Test
    void trimmedVersionsAreNotCounted() {
        assertThat(run("snapshots", "list", "--scope", "trimmed")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("scope trimmed: 6 versions (versions 3..8)")
                .contains("(3 older versions not shown: the command reads the newest 3");
        assertThat(run("snapshots", "show", "2", "--scope", "trimmed")).isEqualTo(1);
        assertThat(err.toString()).contains("version 2 of scope 'trimmed' is not on tierroute.params (trimmed, or never "
                + "published); it holds 6 versions of the scope, the oldest 3, the newest 8");
    }

    @Test
    void showAndDiffFindAVersionBelowTheWindow() {
        assertThat(run("snapshots", "show", "2", "--scope", "show")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("scope show, version 2: accepted")
                .containsPattern("alphaP +2\\.5 +µs/token")
                .contains("rho: 6 (worker, tier) values, 3 workers; CPU min 0.1");
        assertThat(run("snapshots", "diff", "1", "8", "--scope", "show")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("version 1 (accepted) -> 8 (accepted)")
                .containsPattern("alphaP +µs/token +1\\.5 +8\\.5 ");
    }

    @Test
    void pinAndRollbackReachVersionsBelowTheWindow() {
        assertThat(run("snapshots", "pin", "2", "--scope", "pin", "--actor", "alice", "--reason", "last good"))
                .as(err.toString()).isZero();
        assertThat(out.toString()).contains("active version 8 -> 2, pinned to 2");
        assertThat(run("snapshots", "show", "2", "--scope", "pin")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("scope pin, version 2: accepted (active,pinned)");
        assertThat(run("snapshots", "rollback", "--scope", "pin", "--from", "2", "--reason", "2 is bad too"))
                .as(err.toString()).isZero();
        assertThat(out.toString()).contains("rollback of scope 'pin' from 2 to version 1")
                .contains("active version 2 -> 1, pinned to 1");
        assertThat(run("snapshots", "list", "--scope", "pin")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("scope pin: 8 versions (versions 1..8), active 1, pinned to 1");
    }
}
