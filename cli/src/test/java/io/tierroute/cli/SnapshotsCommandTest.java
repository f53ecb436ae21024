package io.tierroute.cli;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.SnapshotControl;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The snapshot CLI against a real embedded broker without authentication. Every test gets its own
 * scope, so they share one broker and one topic pair.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SnapshotsCommandTest {

    private EmbeddedKafka kafka;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @BeforeAll
    void start() throws Exception {
        kafka = EmbeddedKafka.start();
        SnapshotsFixtures.createTopics(kafka);
        try (KafkaProducer<byte[], byte[]> p = SnapshotsFixtures.producer(kafka.bootstrapServers(), new java.util.Properties())) {
            for (String scope : List.of("list", "show", "diff", "pin", "rejected", "rollback", "unconfirmed",
                    "exhausted", "rolled-back-from")) {
                SnapshotsFixtures.publishHistory(p, scope);
            }
            // a forest carried by version 1 and named by version 2, as the job publishes them
            io.tierroute.schemas.avro.QuantileForestModel forest = SnapshotsFixtures.forest(4321);
            SnapshotsFixtures.publish(p, SnapshotsFixtures.accepted("forest", 1).setQuantileModel(forest)
                    .setQuantileModelVersion(1L).build());
            SnapshotsFixtures.publish(p, SnapshotsFixtures.accepted("forest", 2).setQuantileModelVersion(1L).build());
            // stamped with a control sequence whose record is not on the control topic (deleted, the topic recreated)
            SnapshotsFixtures.publish(p, SnapshotsFixtures.accepted("control-gone", 1).build());
            SnapshotsFixtures.publish(p, SnapshotsFixtures.accepted("control-gone", 2).setControlSequence(3).build());
            // the job applied control sequence 5 and stamped it; the control topic was recreated since (empty)
            SnapshotsFixtures.publish(p, SnapshotsFixtures.accepted("stamps-ahead", 1).setControlSequence(4).build());
            SnapshotsFixtures.publish(p, SnapshotsFixtures.accepted("stamps-ahead", 2).setControlSequence(5).build());
            // text from the topic with escape sequences in it: a worker's name reaches a reason (rho[<worker>/<tier>])
            SnapshotsFixtures.publish(p, SnapshotsFixtures.accepted("escapes", 1).setProducer("fitter\u001b[31m").build());
            SnapshotsFixtures.publish(p, SnapshotsFixtures.accepted("escapes", 2)
                    .setStatus(io.tierroute.schemas.avro.SnapshotStatus.REJECTED)
                    .setRejectReasons(List.of("rho[w\u001b[2J/CPU] out of range")).build());
            // version 3 marked ACCEPTED by a writer other than the job, with a value no selector can use
            SnapshotsFixtures.publish(p, SnapshotsFixtures.accepted("unusable", 1).build());
            SnapshotsFixtures.publish(p, SnapshotsFixtures.accepted("unusable", 2).build());
            SnapshotsFixtures.publish(p, SnapshotsFixtures.accepted("unusable", 3)
                    .setAlphaP(SnapshotsFixtures.fv(Double.NaN, 10)).build());
            // a forest whose target name, from the topic, carries an escape sequence
            io.tierroute.schemas.avro.QuantileForestModel escaped = SnapshotsFixtures.forest(7);
            escaped.setTargetName("output\u001b[31m_tokens");
            SnapshotsFixtures.publish(p, SnapshotsFixtures.accepted("forest-escapes", 1).setQuantileModel(escaped)
                    .setQuantileModelVersion(1L).build());
        }
    }

    @AfterAll
    void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    private int run(String... args) {
        return SnapshotsFixtures.runCli(out, err, kafka.bootstrapServers(), args);
    }

    @Test
    void listShowsVersionsNewestFirstWithStatusReasonsAndMarkers() {
        assertThat(run("snapshots", "list", "--scope", "list")).as(err.toString()).isZero();
        String o = out.toString();
        assertThat(o).contains("scope list: 4 versions (versions 1..4), active 3, not pinned");
        List<String> lines = o.lines().toList();
        assertThat(lines.get(1)).startsWith("VERSION").contains("STATUS").contains("REASON");
        assertThat(lines.get(2)).startsWith("4 ").contains("rejected").contains("alphaP jumped");
        assertThat(lines.get(3)).startsWith("3 ").contains("accepted").contains("active");
        assertThat(lines.get(4)).startsWith("2 ").contains("accepted")
                .endsWith(SnapshotsFixtures.HELD.substring(0, SnapshotsText.REASON_WIDTH) + "… (snapshots show 2)");
        assertThat(lines.get(5)).startsWith("1 ").contains("accepted");
        System.out.println("---- snapshots list ----\n" + o);
    }

    /**
     * The rule makes version 3 active, but selectors cannot use it and serve 2: list and show say so, and a pin of it
     * (which would leave every selector on what it serves) is refused.
     */
    @Test
    void aVersionSelectorsCannotUseIsMarkedAndCannotBePinned() {
        assertThat(run("snapshots", "list", "--scope", "unusable")).as(err.toString()).isZero();
        List<String> lines = out.toString().lines().toList();
        assertThat(lines.get(0)).isEqualTo("scope unusable: 3 versions (versions 1..3), active 3 (selectors cannot use "
                + "it: they serve 2), not pinned");
        assertThat(lines.get(2)).startsWith("3 ").contains(" active,unusable ")
                .endsWith("selectors cannot use it: alphaP must be finite, got NaN");
        assertThat(lines.get(3)).startsWith("2 ").contains(" served ");
        assertThat(lines.get(4)).startsWith("1 ").doesNotContain("served");

        assertThat(run("snapshots", "show", "3", "--scope", "unusable")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("scope unusable, version 3: accepted (active,unusable)\n")
                .contains("\nselectors cannot use it: alphaP must be finite, got NaN\n");

        assertThat(run("snapshots", "pin", "3", "--scope", "unusable", "--reason", "try")).isEqualTo(1);
        assertThat(err.toString()).contains("refused: version 3 of scope 'unusable' cannot be used by selectors (alphaP "
                + "must be finite, got NaN); pinned, they would keep serving the version they serve now. Nothing was "
                + "written.");
        assertThat(run("snapshots", "rollback", "--scope", "unusable", "--reason", "v3 is bad")).as(err.toString())
                .isZero();
        assertThat(out.toString()).as("the version active before 3")
                .contains("to version 2");
    }

    /** Producer and reasons come from the topic: an ESC in them is printed as {@code \u001b}, not sent to the terminal. */
    @Test
    void producerAndReasonsFromTheTopicArePrintedEscaped() {
        assertThat(run("snapshots", "list", "--scope", "escapes")).as(err.toString()).isZero();
        assertThat(out.toString()).doesNotContain("\u001b").contains("fitter\\u001b[31m")
                .contains("rho[w\\u001b[2J/CPU] out of range");
        assertThat(run("snapshots", "show", "2", "--scope", "escapes")).as(err.toString()).isZero();
        assertThat(out.toString()).doesNotContain("\u001b").contains("rejected: rho[w\\u001b[2J/CPU] out of range");
        assertThat(run("snapshots", "show", "1", "--scope", "escapes")).as(err.toString()).isZero();
        assertThat(out.toString()).doesNotContain("\u001b").contains("producer fitter\\u001b[31m");
        assertThat(run("snapshots", "pin", "2", "--scope", "escapes", "--reason", "try")).isEqualTo(1);
        assertThat(err.toString()).doesNotContain("\u001b").contains("rho[w\\u001b[2J/CPU]");
    }

    @Test
    void showPrintsEveryParameterWithItsEvidenceAndRho() {
        assertThat(run("snapshots", "show", "2", "--scope", "show")).as(err.toString()).isZero();
        String o = out.toString();
        assertThat(o).as("an accepted version's reasons are what the gate held, not rejections")
                .contains("\n" + SnapshotsFixtures.HELD + "\n").doesNotContain("rejected: ");
        assertThat(run("snapshots", "show", "4", "--scope", "show")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("\nrejected: alphaP jumped ×12 against version 3\n");
        assertThat(run("snapshots", "show", "2", "--scope", "show")).as(err.toString()).isZero();
        o = out.toString();
        assertThat(o).contains("scope show, version 2: accepted")
                .containsPattern("alphaP +2\\.5 +µs/token +2000 +R2 0\\.9 +0\\.025 +2025-10-09 08:30:00 \\.\\. 2025-10-09 08:40:00 \\(10m\\)")
                .contains("bw.CPU").contains("bytes/s")
                .containsPattern("decodeStepUs +0 +µs/token").containsPattern("decodeStepKvUs +0 +µs/token²")
                .containsPattern("kvWaitScale +1 +×")
                .contains("rho: 6 (worker, tier) values, 3 workers; CPU min 0.1 median 0.45 max 0.8")
                .contains("; 1 measured against their link's fastest rate, not BW_t\n");
        System.out.println("---- snapshots show ----\n" + o);
    }

    @Test
    void showNamesTheVersionThatPublishedTheForestInFull() {
        assertThat(run("snapshots", "show", "2", "--scope", "forest")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("quantile forest: target output_tokens, 1 trees, 1 leaves, 4321 training "
                + "rows (published in full in version 1)");
        assertThat(run("snapshots", "show", "1", "--scope", "forest")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("4321 training rows\n").doesNotContain("published in full");
    }

    /** The forest's target name comes from the topic: escaped, as producer and reasons are. */
    @Test
    void showEscapesTheForestsTargetName() {
        assertThat(run("snapshots", "show", "1", "--scope", "forest-escapes")).as(err.toString()).isZero();
        assertThat(out.toString()).doesNotContain("\u001b").contains("quantile forest: target output\\u001b[31m_tokens, ");
    }

    @Test
    void diffGivesOldNewAndRelativeChange() {
        assertThat(run("snapshots", "diff", "1", "3", "--scope", "diff")).as(err.toString()).isZero();
        String o = out.toString();
        assertThat(o).contains("version 1 (accepted) -> 3 (accepted)")
                .containsPattern("alphaP +µs/token +1\\.5 +3\\.5 +\\+133\\.3%")
                .containsPattern("alphaD +µs/token +41 +43 +\\+4\\.9%")
                .containsPattern("alphaT +× +1\\.1 +1\\.1 +=");
        System.out.println("---- snapshots diff ----\n" + o);
    }

    @Test
    void pinAndUnpinRecordWhoAndWhy() {
        assertThat(run("snapshots", "pin", "2", "--scope", "pin", "--actor", "alice", "--reason", "bad fit on 3"))
                .as(err.toString()).isZero();
        assertThat(out.toString()).contains("pin of scope 'pin' to version 2: written as control sequence 1 by alice")
                .contains("active version 3 -> 2, pinned to 2");
        System.out.println("---- snapshots pin ----\n" + out);
        assertThat(run("snapshots", "pin", "2", "--scope", "pin", "--reason", "again")).as("pinned already").isEqualTo(1);
        assertThat(err.toString()).contains("refused: scope 'pin' is already pinned to version 2. Nothing was written.");
        assertThat(run("snapshots", "list", "--scope", "pin")).isZero();
        assertThat(out.toString()).contains("pinned to 2 (last control: PIN 2 by alice").contains("\"bad fit on 3\"")
                .containsPattern("(?m)^2 +accepted +active,pinned");
        assertThat(run("snapshots", "unpin", "--scope", "pin", "--reason", "fixed")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("unpin of scope 'pin' (was pinned to 2): written as control sequence 2 by "
                + System.getProperty("user.name")).contains("scope pin: unpinned; version 2 stays active until the "
                + "fitting job publishes an accepted snapshot after seeing the unpin").doesNotContain("2 -> 2");
        List<SnapshotControl> controls = SnapshotsFixtures.controlRecords(kafka.bootstrapServers(),
                new java.util.Properties(), "pin");
        assertThat(controls).extracting(SnapshotControl::getAction).containsExactly(ControlAction.PIN, ControlAction.UNPIN);
        assertThat(controls.get(0).getReason()).isEqualTo("bad fit on 3");
        assertThat(run("snapshots", "unpin", "--scope", "pin", "--reason", "again")).isEqualTo(1);
        assertThat(err.toString()).contains("is not pinned");
    }

    /**
     * A committed control record whose outcome cannot be confirmed (the read back fails, or readers do not see the
     * record in time) is written all the same: the command says so, and exits 3 rather than 1 (refused), so that
     * nobody repeats a rollback, which would roll back a second time.
     */
    @Test
    void aCommittedWriteThatCannotBeConfirmedSaysItStands() {
        SnapshotsWriteCommands.Write.Target t = new SnapshotsWriteCommands.Write.Target(ControlAction.PIN, 2,
                "rollback of scope 'unconfirmed' from 3 to version 2");
        SnapshotControl c = SnapshotControl.newBuilder().setScope("unconfirmed").setAction(ControlAction.PIN)
                .setVersion(2L).setReason("bad fit").setActor("alice").setTimestampMs(0).setSequence(1).build();
        SnapshotsKafka gone = new SnapshotsKafka("127.0.0.1:1", new java.util.Properties(), java.time.Duration.ofSeconds(2));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SnapshotsWriteCommands.Write.confirm(gone,
                        "unconfirmed", 1, t, c, java.time.Duration.ofSeconds(1)))
                .isInstanceOf(SnapshotsKafka.Unconfirmed.class)
                .hasMessageContaining("rollback of scope 'unconfirmed' from 3 to version 2 was written as control "
                        + "sequence 1 by alice (bad fit), but what became active could not be read back (")
                .hasMessageContaining("it stands: do not repeat the command");
        // the scope's control topic holds no sequence 1: as while a transaction left open before it holds it back
        SnapshotsKafka reachable = new SnapshotsKafka(kafka.bootstrapServers(), new java.util.Properties(),
                java.time.Duration.ofSeconds(30));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SnapshotsWriteCommands.Write.confirm(reachable,
                        "unconfirmed", 1, t, c, java.time.Duration.ofSeconds(1)))
                .isInstanceOf(SnapshotsKafka.Unconfirmed.class)
                .hasMessageContaining("readers did not see it within 1 s (the control topic's committed end is at "
                        + "sequence 0 of the scope");
        // the scope gone from the read back (its records deleted meanwhile): unconfirmed too, not NoSuchElementException
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SnapshotsWriteCommands.Write.confirm(reachable,
                        "vanished", 1, t, c, java.time.Duration.ofSeconds(1)))
                .isInstanceOf(SnapshotsKafka.Unconfirmed.class)
                .hasMessageContaining("but what became active could not be read back (scope 'vanished' is no longer on "
                        + "the topics)")
                .hasMessageContaining("it stands: do not repeat the command");
        for (String write : List.of("pin", "unpin", "rollback")) {
            assertThat(run("snapshots", write, "--help")).isZero();
            assertThat(out.toString().replaceAll("\\s+", " ")).as(write + " --help").contains("3 written, but what "
                    + "became active could not be read back: the write stands, do not repeat the command");
        }
    }

    /** Before: the CLI wrote sequence 2^62 + 1, which every reader refuses, and exited 3 (unconfirmed). */
    @Test
    void aScopeWhoseControlSequenceIsAtTheBoundIsRefused() {
        try (io.tierroute.dashboards.control.ControlFence fence = io.tierroute.dashboards.control.ControlFence.open(
                kafka.bootstrapServers(), new java.util.Properties(), "exhausted", java.time.Duration.ofSeconds(10),
                "test")) {
            fence.commit(SnapshotControl.newBuilder().setScope("exhausted").setAction(ControlAction.PIN)
                    .setVersion(2L).setReason("at the bound").setActor("test").setTimestampMs(0)
                    .setSequence(io.tierroute.schemas.snapshot.ControlRecordCheck.MAX_SEQUENCE).build());
        }
        for (String[] write : List.of(new String[] {"pin", "3"}, new String[] {"unpin"})) {
            List<String> args = new ArrayList<>(List.of("snapshots"));
            args.addAll(List.of(write));
            args.addAll(List.of("--scope", "exhausted", "--reason", "try"));
            assertThat(run(args.toArray(String[]::new))).as(err.toString()).isEqualTo(1);
            assertThat(err.toString()).contains("refused: the control sequence of scope 'exhausted' is exhausted")
                    .contains("Nothing was written");
        }
        assertThat(SnapshotsFixtures.controlRecords(kafka.bootstrapServers(), new java.util.Properties(), "exhausted"))
                .hasSize(1);
    }

    /**
     * Before: numbered from the (recreated, empty) control topic alone, the pin took sequence 1, which the fitting job
     * ignores (it applied 5) while every reader applies it.
     */
    @Test
    void aPinAfterTheControlTopicLostRecordsNumbersAboveTheSnapshotsStamps() {
        assertThat(run("snapshots", "pin", "1", "--scope", "stamps-ahead", "--actor", "bob", "--reason", "recreated"))
                .as(err.toString()).isZero();
        assertThat(out.toString()).contains("written as control sequence 6");
        assertThat(SnapshotsFixtures.controlRecords(kafka.bootstrapServers(), new java.util.Properties(), "stamps-ahead"))
                .extracting(SnapshotControl::getSequence).containsExactly(6L);
        assertThat(SnapshotsFixtures.activeVersion(kafka.bootstrapServers(), new java.util.Properties(), "stamps-ahead"))
                .isEqualTo(1);
    }

    @Test
    void pinOfARejectedVersionIsRefusedAndNothingIsWritten() {
        assertThat(run("snapshots", "pin", "4", "--scope", "rejected", "--reason", "try")).isEqualTo(1);
        assertThat(err.toString()).contains("refused: version 4 of scope 'rejected' was REJECTED")
                .contains("alphaP jumped").contains("Nothing was written");
        System.out.println("---- pin rejected ----\n" + err);
        assertThat(SnapshotsFixtures.controlRecords(kafka.bootstrapServers(), new java.util.Properties(), "rejected"))
                .isEmpty();
    }

    @Test
    void rollbackPinsTheAcceptedVersionBeforeTheActiveOne() {
        assertThat(run("snapshots", "rollback", "--scope", "rollback", "--actor", "bob", "--reason", "regression"))
                .as(err.toString()).isZero();
        assertThat(out.toString()).contains("rollback of scope 'rollback' from 3 to version 2")
                .contains("active version 3 -> 2, pinned to 2");
        assertThat(SnapshotsFixtures.activeVersion(kafka.bootstrapServers(), new java.util.Properties(), "rollback"))
                .isEqualTo(2);
        // again: from 2 to 1
        assertThat(run("snapshots", "rollback", "--scope", "rollback", "--actor", "bob", "--reason", "still bad"))
                .as(err.toString()).isZero();
        assertThat(out.toString()).contains("from 2 to version 1");
        // --from names the version the operator saw: a second operator who also saw 2 does not roll back again.
        assertThat(run("snapshots", "rollback", "--scope", "rollback", "--from", "2", "--reason", "2 is bad")).isEqualTo(1);
        assertThat(err.toString()).contains("version 1 of scope 'rollback' is active, not --from 2 (rolled back or "
                + "pinned meanwhile?)").contains("Nothing was written");
        // a version the scope never had is a typo, not a race
        assertThat(run("snapshots", "rollback", "--scope", "rollback", "--from", "999999", "--reason", "typo"))
                .isEqualTo(1);
        assertThat(err.toString()).contains("is active, not --from 999999; the scope has no version 999999. Nothing "
                + "was written.").doesNotContain("meanwhile");
    }

    /**
     * v3 is bad: a rollback pins 2, an unpin leaves 2 active, and the job publishes v5 (stamped with the unpin's
     * sequence), active. A rollback from 5 goes back to 2, the version active before it, never to 3, the one rolled back
     * from as bad (which is what "the newest accepted version below the active one" picked).
     */
    @Test
    void aRollbackAfterAnUnpinGoesToTheVersionActiveBeforeNotToTheOneRolledBackFrom() throws Exception {
        String scope = "rolled-back-from";
        assertThat(run("snapshots", "rollback", "--scope", scope, "--from", "3", "--reason", "v3 is bad"))
                .as(err.toString()).isZero();
        assertThat(run("snapshots", "unpin", "--scope", scope, "--reason", "fit fixed")).as(err.toString()).isZero();
        try (KafkaProducer<byte[], byte[]> p = SnapshotsFixtures.producer(kafka.bootstrapServers(),
                new java.util.Properties())) {
            SnapshotsFixtures.publish(p, SnapshotsFixtures.accepted(scope, 5).setControlSequence(2).build());
        }
        assertThat(SnapshotsFixtures.activeVersion(kafka.bootstrapServers(), new java.util.Properties(), scope))
                .isEqualTo(5);

        assertThat(run("snapshots", "rollback", "--scope", scope, "--from", "5", "--reason", "v5 is bad too"))
                .as(err.toString()).isZero();

        assertThat(out.toString()).contains("rollback of scope '" + scope + "' from 5 to version 2")
                .contains("active version 5 -> 2, pinned to 2");
    }

    /**
     * A snapshot stamped with a control sequence whose record is gone: the rule holds it back for that record only until
     * the read has gone through both topics once more; then it counts, as in every selector (not "active none").
     */
    @Test
    void aSnapshotWhoseControlRecordIsGoneCountsOnceBothTopicsAreReadThrough() {
        assertThat(run("snapshots", "list", "--scope", "control-gone")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("scope control-gone: 2 versions (versions 1..2), active 2, not pinned");
    }

    @Test
    void unknownScopeAndVersionAreClearErrors() {
        assertThat(run("snapshots", "show", "99", "--scope", "show")).isEqualTo(1);
        assertThat(err.toString()).contains("version 99 of scope 'show' is not on tierroute.params (trimmed, or never "
                + "published); it holds 4 versions of the scope, the oldest 1, the newest 4");
        assertThat(run("snapshots", "list", "--scope", "nope")).isEqualTo(1);
        assertThat(err.toString()).contains("unknown scope 'nope'; known scopes: [");
    }

    @Test
    void argumentsThatCannotNameAVersionAreRefusedBeforeTheBrokerIsAsked() {
        String[] closed = {"--bootstrap", "127.0.0.1:1", "--timeout", "5"}; // a broker's answer would take 5 s
        String[][] cases = {
            {"--limit must be ≥ 0 (0: all), got -1", "snapshots", "list", "-n", "-1"},
            {"VERSION must be a version ≥ 1, got -1", "snapshots", "show", "--", "-1"},
            {"VERSION must be a version ≥ 1, got 0", "snapshots", "pin", "0", "--reason", "r"},
            {"A and B are both version 2; give two versions", "snapshots", "diff", "2", "2"}};
        for (String[] c : cases) {
            out.getBuffer().setLength(0);
            err.getBuffer().setLength(0);
            List<String> args = new ArrayList<>(List.of(c[1], c[2]));
            args.addAll(List.of(closed));
            args.addAll(List.of(c).subList(3, c.length));
            assertThat(TierrouteCommand.execute(args.toArray(String[]::new), new PrintWriter(out, true),
                    new PrintWriter(err, true))).as(c[0]).isEqualTo(2);
            assertThat(err.toString()).as(c[0]).contains(c[0]).doesNotContain("broker unreachable");
        }
        err.getBuffer().setLength(0);
        assertThat(run("snapshots", "list", "--timeout", "2147483647")).isEqualTo(2);
        assertThat(err.toString()).contains("--timeout must be in [1 s, 3600 s], got 2147483647 s");
        err.getBuffer().setLength(0);
        assertThat(run("snapshots", "list", "--timeout", "500ms")).isEqualTo(2);
        assertThat(err.toString()).contains("--timeout must be in [1 s, 3600 s], got 500 ms");
        err.getBuffer().setLength(0);
        assertThat(run("snapshots", "list", "--timeout", "soon")).isEqualTo(2);
        assertThat(err.toString()).contains("'soon' is not a duration");
        // 18 digits were taken, and the range message overflowed (ArithmeticException: long overflow, a defect's trace)
        err.getBuffer().setLength(0);
        assertThat(run("snapshots", "list", "--timeout", "999999999999999999")).isEqualTo(2);
        assertThat(err.toString()).startsWith("--timeout must be in [1 s, 3600 s], got 999999999999999999 s")
                .doesNotContain("Exception");
        err.getBuffer().setLength(0);
        assertThat(run("snapshots", "show", "1", "--timeout", "9999999999999999999")).isEqualTo(2);
        assertThat(err.toString()).contains("'9999999999999999999' is longer than").doesNotContain("Exception");
    }

    /** Whole seconds, as the option always took, or a duration with its unit, as every other command's timeouts. */
    @Test
    void theTimeoutTakesSecondsOrADuration() {
        SecondsOrDuration c = new SecondsOrDuration();
        assertThat(c.convert("15")).isEqualTo(java.time.Duration.ofSeconds(15));
        assertThat(c.convert("15s")).isEqualTo(java.time.Duration.ofSeconds(15));
        assertThat(c.convert("2m")).isEqualTo(java.time.Duration.ofMinutes(2));
    }

    @Test
    void writesNeedAReason() {
        assertThat(run("snapshots", "rollback", "--scope", "rollback")).isEqualTo(2);
        assertThat(err.toString()).contains("--reason");
        assertThat(run("snapshots", "rollback", "--scope", "rollback", "--reason", "ok\nFAKE: not pinned\u001b[2J"))
                .as("a reason that would forge a line on other operators' terminals").isEqualTo(2);
        assertThat(err.toString()).contains("one line of printable text");
    }

    @Test
    void anUnreachableBrokerIsATimeoutWithAMessage() {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        int rc = TierrouteCommand.execute(new String[] {"snapshots", "list", "--bootstrap", "127.0.0.1:1",
                "--timeout", "2"}, new PrintWriter(out, true), new PrintWriter(err, true));
        assertThat(rc).isEqualTo(1);
        assertThat(err.toString()).startsWith("tierroute snapshots list: broker unreachable: no answer from 127.0.0.1:1")
                .contains("--command-config").doesNotContain("\tat ");
        System.out.println("---- unreachable ----\n" + err);
    }

    /** Settings were given: the advice is to check them, not to pass some. */
    @Test
    void anUnreachableBrokerWithClientSettingsGivenAdvisesCheckingThem() throws Exception {
        java.nio.file.Path config = java.nio.file.Files.createTempFile("snapshots-client", ".properties");
        try {
            java.nio.file.Files.writeString(config, "client.dns.lookup=use_all_dns_ips\n");
            err.getBuffer().setLength(0);
            int rc = TierrouteCommand.execute(new String[] {"snapshots", "list", "--bootstrap", "127.0.0.1:1",
                    "--timeout", "2", "--command-config", config.toString()}, new PrintWriter(out, true),
                    new PrintWriter(err, true));
            assertThat(rc).isEqualTo(1);
            assertThat(err.toString()).contains("broker unreachable").contains("Check the client settings of "
                    + "--command-config").doesNotContain("pass its client settings");
        } finally {
            java.nio.file.Files.delete(config);
        }
    }

    /** {@code args} against another bootstrap than the test's broker. */
    private int runAgainst(String bootstrap, String... args) {
        return SnapshotsFixtures.runCli(out, err, bootstrap, args);
    }

    /**
     * A value Kafka refuses in --command-config was reported as a failure to read from the broker, without the file;
     * a mistyped key ended as "broker unreachable". Now a usage error naming file and key, and a warning.
     */
    @Test
    void aCommandConfigWithAValueKafkaRefusesOrAnUnknownKeyIsSaidAsSuch(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        Path bad = Files.writeString(dir.resolve("bad.properties"), "security.protocol=BOGUS\n");
        err.getBuffer().setLength(0);
        assertThat(runAgainst("127.0.0.1:1", "snapshots", "list", "--timeout", "2", "--command-config", bad.toString()))
                .isEqualTo(2);
        assertThat(err.toString()).contains("--command-config " + bad + ": 'security.protocol': Kafka refuses its value")
                .doesNotContain("BOGUS");
        Path typo = Files.writeString(dir.resolve("typo.properties"), "securty.protocol=SSL\n");
        err.getBuffer().setLength(0);
        runAgainst("127.0.0.1:1", "snapshots", "list", "--timeout", "2", "--command-config", typo.toString());
        assertThat(err.toString()).contains("tierroute: warning: --command-config " + typo + ": 'securty.protocol' is no "
                + "setting of a Kafka client (a typo?): Kafka ignores it unless a plugin reads it");
    }

    @Test
    void aClientThatCannotBeBuiltSaysWhy() throws Exception {
        // Kafka wraps the reason in "Failed to construct kafka consumer"; the operator needs the reason.
        assertThat(runAgainst("no-such-host.invalid:9092", "snapshots", "list", "--timeout", "2")).isEqualTo(1);
        assertThat(err.toString()).contains("Failed to construct kafka consumer").contains("bootstrap")
                .contains("resolvable").doesNotContain("\tat ");
        Path config = Files.createTempFile("sasl-without-jaas", ".properties");
        try {
            Files.writeString(config, "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n");
            assertThat(runAgainst("127.0.0.1:1", "snapshots", "list", "--timeout", "2",
                    "--command-config", config.toString())).isEqualTo(1);
            // The reason under it: no JAAS entry, or (after a SASL test in this JVM pointed the JVM-wide JAAS
            // setting at a file it has since deleted) that file: either way more than the wrapper's words.
            assertThat(err.toString()).contains("Failed to construct kafka consumer: Failed to create new NetworkClient: ");
        } finally {
            Files.delete(config);
        }
    }

    @Test
    void helpDocumentsTheCredentialsAndAcls() {
        out.getBuffer().setLength(0);
        assertThat(TierrouteCommand.execute(new String[] {"snapshots", "--help"}, new PrintWriter(out, true),
                new PrintWriter(err, true))).isZero();
        assertThat(out.toString()).contains("--command-config").contains("WRITE, DESCRIBE on topic tierroute.control")
                .contains("rollback");
    }
}
