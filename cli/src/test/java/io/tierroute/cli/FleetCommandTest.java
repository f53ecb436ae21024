package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.deploy.local.LoopbackPorts;
import io.tierroute.deploy.local.ProjectTopics;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tierroute fleet} on a real broker: the fleet's records and the selector's decisions land on the topics. */
class FleetCommandTest {

    private static String[] run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = TierrouteCommand.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new String[] {Integer.toString(rc), out.toString(), err.toString()};
    }

    @Test
    void theFleetPublishesEveryCompletionAndDecisionToTheGivenKafka() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            ProjectTopics.create(kafka.bootstrapServers(), (short) 1);
            try (var producer = SnapshotsFixtures.producer(kafka.bootstrapServers(), new Properties())) {
                SnapshotsFixtures.publishHistory(producer, "default"); // v1..v3 accepted, v4 rejected
            }
            String[] r = run("fleet", "--bootstrap", kafka.bootstrapServers(), "--workload", "chat", "--limit", "40",
                    "--workers", "2", "--time-scale", "200", "--status-interval", "200ms");
            assertThat(r[0]).as(r[1] + r[2]).isEqualTo("0");
            assertThat(r[1]).as("a refused fit is said, not only an older version served")
                    .contains("snapshots: default=v3 (v4 rejected); the selector swapped 1 time and ended on v3")
                    .contains("the validation gate rejected the newest fit, v4: 'tierroute snapshots show 4 --bootstrap "
                            + kafka.bootstrapServers() + "' says why");
            assertThat(r[1]).contains("tierroute fleet: stopping (the fleet replayed every request)")
                    .containsPattern("ran \\d+ s wall after a \\d+ s start-up, \\d+ s simulated; ")
                    .contains("requests: 40 routed, 40 completed, 0 failed, 0 in flight at the stop (of 40 in the workload)")
                    .containsPattern("fleet records: (\\d+) acknowledged of \\1 sent \\(0 failed, 0 dropped at the close\\): "
                            + "\\d+ telemetry, \\d+ KV batches, 40 completions")
                    .contains("decisions published: 40 acknowledged of 40 offered")
                    .contains("selector API:     http://127.0.0.1:");
            assertThat(r[2]).as("stderr is no terminal here: each status is a line of its own, never redrawn")
                    .doesNotContain("\r").containsPattern("(?m)^\\[ *\\d+s \\| sim +\\d+s\\] routed \\d+, done \\d+ .*$");
            assertThat(endOffset(kafka.bootstrapServers(), Topics.COMPLETIONS)).isEqualTo(40);
            assertThat(endOffset(kafka.bootstrapServers(), Topics.DECISIONS)).isEqualTo(40);
            assertThat(endOffset(kafka.bootstrapServers(), Topics.TELEMETRY)).as("1 Hz per worker").isPositive();
        }
    }

    /**
     * With --scope, every decision is published in that scope, those made before its first snapshot too: the selector
     * starts on the defaults re-scoped, as the standalone selector does (before, it started on scope "default", whose
     * decisions a fitting job then fitted into snapshots of "default").
     */
    @Test
    void aRunWithAnotherScopePublishesDecisionsOfThatScopeOnly() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            ProjectTopics.create(kafka.bootstrapServers(), (short) 1);
            try (var producer = SnapshotsFixtures.producer(kafka.bootstrapServers(), new Properties())) {
                SnapshotsFixtures.publishHistory(producer, "default"); // another scope has snapshots, "foo" none
            }
            String[] r = run("fleet", "--bootstrap", kafka.bootstrapServers(), "--scope", "foo", "--workload", "chat",
                    "--limit", "20", "--workers", "2", "--time-scale", "200", "--status-interval", "200ms",
                    "--duration", "59500ms");
            assertThat(r[0]).as(r[1] + r[2]).isEqualTo("0");
            assertThat(r[1]).contains("decisions published: 20 acknowledged of 20 offered")
                    .as("a duration is said as given, not in whole seconds (59 s)")
                    .contains("Stopping after 59.5 s of replay (or Ctrl-C).");
            List<String> scopes = decisionScopes(kafka.bootstrapServers());
            assertThat(scopes).hasSize(20).containsOnly("foo");
        }
    }

    @Test
    void aKafkaThatDoesNotAnswerOrResolveIsSaidAtOnceAndABadAddressIsAUsageError() {
        String[] down = run("fleet", "--bootstrap", "127.0.0.1:" + LoopbackPorts.free(), "--workload", "chat");
        assertThat(down[0]).isEqualTo("1");
        assertThat(down[2]).contains("does not answer; is it running?");
        String[] unknown = run("fleet", "--bootstrap", "no-such-host.invalid:9092", "--workload", "chat");
        assertThat(unknown[0]).isEqualTo("1");
        assertThat(unknown[2]).isEqualTo("tierroute fleet: the host of --bootstrap no-such-host.invalid:9092 does not "
                + "resolve (unknown host no-such-host.invalid)" + System.lineSeparator());
        String[] bad = run("fleet", "--bootstrap", "no-port", "--workload", "chat");
        assertThat(bad[0]).isEqualTo("2");
        assertThat(bad[2].lines().findFirst().orElse("")).startsWith("--bootstrap must be HOST:PORT");
        String[] workers = run("fleet", "--bootstrap", "127.0.0.1:9092", "--workers", "0");
        assertThat(workers[0]).isEqualTo("2");
        assertThat(workers[2]).startsWith("--workers must be in [1, 4096], got 0");
    }

    /** On the old code a blank name passed, and the selector API's line read "$ is unset". */
    @Test
    void aBlankTokenEnvIsAUsageError() {
        for (String blank : new String[] {"", " "}) {
            String[] r = run("fleet", "--bootstrap", "127.0.0.1:" + LoopbackPorts.free(), "--workload", "chat",
                    "--token-env", blank);
            assertThat(r[0]).as("'" + blank + "'").isEqualTo("2");
            assertThat(r[2].lines().findFirst().orElse("")).isEqualTo("--token-env must not be empty");
        }
    }

    @Test
    void aBrokerWithoutTheTopicsIsNamedAndAStopDuringTheStartStopsIt() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            String[] r = run("fleet", "--bootstrap", kafka.bootstrapServers(), "--workload", "chat", "--limit", "10");
            assertThat(r[0]).isEqualTo("1");
            assertThat(r[2]).contains("has no topic tierroute.params, tierroute.control").contains("'tierroute cluster up'");

            ProjectTopics.create(kafka.bootstrapServers(), (short) 1);
            var settings = new FleetRun.Settings(kafka.bootstrapServers(), java.util.Map.of(), 2, 100, "default", 1, 0, null, "UNSET_TOKEN_ENV",
                    false);
            var work = io.tierroute.sim.live.LiveWorkload.load(null, "chat", 2, 1, 10, 1);
            long begin = System.nanoTime();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> FleetRun.start(settings, work, begin, () -> true))
                    .isInstanceOf(FleetRun.StoppedDuringStart.class);
            try (FleetRun run = FleetRun.start(settings, work, begin, () -> false)) {
                assertThat(run.selectorUri().getPort()).as("started when nobody stops it").isPositive();
            }
        }
    }

    /**
     * A {@code --command-config} file's {@code linger.ms} reaches every producer of a fleet run. One of 30 s made the
     * selector's decision producer refuse to be built (its delivery timeout's default was below linger plus request
     * timeout) and the run exited 1 saying only "Failed to construct kafka producer"; one of a few seconds held the last
     * decisions past the stop's wait for them, and a clean run ended as a failure. Now a long linger runs and stops clean,
     * and settings Kafka does refuse are named with Kafka's reason.
     */
    @Test
    void aLongLingerRunsAndStopsCleanAndSettingsKafkaRefusesAreNamedWithItsReason(@TempDir Path tmp) throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            ProjectTopics.create(kafka.bootstrapServers(), (short) 1);
            Path lingering = Files.writeString(tmp.resolve("linger.properties"), "linger.ms=30000\n");
            String[] r = run("fleet", "--bootstrap", kafka.bootstrapServers(), "--workload", "chat", "--limit", "20",
                    "--workers", "2", "--time-scale", "200", "--command-config", lingering.toString());
            assertThat(r[0]).as(r[1] + r[2]).isEqualTo("0");
            assertThat(r[1]).contains("tierroute fleet: stopping (the fleet replayed every request)")
                    .contains("decisions published: 20 acknowledged of 20 offered (0 dropped or failed, 0 still in flight)")
                    .containsPattern("fleet records: (\\d+) acknowledged of \\1 sent \\(0 failed, 0 dropped at the close\\)");

            Path contradictory = Files.writeString(tmp.resolve("contradictory.properties"),
                    "linger.ms=60000\ndelivery.timeout.ms=30000\n");
            String[] refused = run("fleet", "--bootstrap", kafka.bootstrapServers(), "--workload", "chat", "--limit", "20",
                    "--command-config", contradictory.toString());
            assertThat(refused[0]).as(refused[1] + refused[2]).isEqualTo("1");
            assertThat(refused[2]).contains("tierroute fleet: cannot start: Failed to construct kafka producer: "
                            + "delivery.timeout.ms should be equal to or larger than linger.ms + request.timeout.ms")
                    .contains("; check --bootstrap and the client settings in " + contradictory);
        }
    }

    /** The scope of every decision on {@link Topics#DECISIONS}, read from the beginning to the end offsets. */
    private static List<String> decisionScopes(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        List<String> scopes = new java.util.ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = c.partitionsFor(Topics.DECISIONS, Duration.ofSeconds(10)).stream()
                    .map(i -> new TopicPartition(Topics.DECISIONS, i.partition())).toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            java.util.Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(10));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp)) && System.nanoTime() < deadline) {
                for (var rec : c.poll(Duration.ofMillis(200))) {
                    scopes.add(Codecs.ROUTING_DECISION.decode(rec.value()).getScope());
                }
            }
        }
        return scopes;
    }

    /** Records on the topic (all partitions), read from the end offsets: the producers have flushed at close. */
    private static long endOffset(String bootstrap, String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = c.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            return c.endOffsets(parts, Duration.ofSeconds(10)).values().stream().mapToLong(Long::longValue).sum();
        }
    }
}
