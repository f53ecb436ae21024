package io.tierroute.cli;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotStatus;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code snapshots trim} against a real embedded broker: what stays on the params topic once compaction applies the
 * tombstones, and that every reader's answer (active version, rollback target, forests) is the same afterwards. Each
 * test has its own scope.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SnapshotsTrimTest {

    private EmbeddedKafka kafka;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @BeforeAll
    void start() {
        kafka = EmbeddedKafka.start();
        SnapshotsFixtures.createTopics(kafka);
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

    /**
     * Versions 1..n of {@code scope} as the job publishes them: accepted but every 10th rejected, a forest carried by
     * version 1 and named by every later one up to 1999, a new forest carried by 2000 and named after it.
     */
    private void publish(String scope, long n) {
        try (KafkaProducer<byte[], byte[]> p = SnapshotsFixtures.producer(kafka.bootstrapServers(), new Properties())) {
            for (long v = 1; v <= n; v++) {
                ParameterSnapshot.Builder b = SnapshotsFixtures.accepted(scope, v)
                        .setStatus(v % 10 == 0 ? SnapshotStatus.REJECTED : SnapshotStatus.ACCEPTED);
                if (v == 1 || v == 2000) {
                    b.setQuantileModel(SnapshotsFixtures.forest((int) v)).setQuantileModelVersion(v);
                } else {
                    b.setQuantileModelVersion(v < 2000 ? 1L : 2000L);
                }
                ParameterSnapshot s = b.build();
                p.send(new ProducerRecord<>(Topics.PARAMS, Topics.paramsKey(scope, v).getBytes(StandardCharsets.UTF_8),
                        Codecs.PARAMETER_SNAPSHOT.encode(s)));
            }
            p.flush();
        }
    }

    /** The versions of {@code scope} compaction keeps: the keys whose last record is not a tombstone. */
    private Set<Long> versionsAfterCompaction(String scope) {
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrapServers());
        p.put("isolation.level", "read_committed");
        Map<String, Boolean> live = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(Topics.PARAMS, 0);
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp)).get(tp);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (c.position(tp) < end && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(r -> live.put(new String(r.key(), StandardCharsets.UTF_8), r.value() != null));
            }
        }
        String prefix = scope + "#";
        return live.entrySet().stream().filter(e -> e.getValue() && e.getKey().startsWith(prefix))
                .map(e -> Long.parseLong(e.getKey().substring(prefix.length())))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<Long> range(long from, long to) {
        return LongStream.rangeClosed(from, to).boxed().collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void aPinnedScopeKeepsItsWindowThePinTheRollbackTargetAndTheForestsTheyName() {
        publish("pinned", 3000);
        assertThat(run("snapshots", "pin", "7", "--scope", "pinned", "--reason", "v8 regressed")).as(err.toString()).isZero();

        assertThat(run("snapshots", "trim", "--scope", "pinned", "--keep", "1000")).as(err.toString()).isZero();

        String o = out.toString();
        System.out.println("---- snapshots trim ----\n" + o);
        assertThat(o).contains("scope pinned: 3,000 versions on tierroute.params, newest 3000; keeping the newest 1,000")
                .contains("holding 1: carries the forest of 6").contains("holding 6: rollback target")
                .contains("holding 7: active, pinned").contains("holding 2000: carries the forest of 2001")
                .contains("deleting 1,996 versions: 2–5, 8–1999")
                .contains("scope pinned: 1,996 versions deleted");
        Set<Long> expected = range(2001, 3000);
        expected.addAll(List.of(1L, 6L, 7L, 2000L));
        assertThat(versionsAfterCompaction("pinned")).isEqualTo(expected);

        // Every reader's answers are unchanged: still pinned to 7 with its forest; the rollback target is 6.
        assertThat(run("snapshots", "list", "--scope", "pinned", "--limit", "0")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("scope pinned: 1004 versions (versions 1..3000), active 7, pinned to 7");
        assertThat(run("snapshots", "show", "7", "--scope", "pinned")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("published in full in version 1");
        assertThat(run("snapshots", "unpin", "--scope", "pinned", "--reason", "fixed")).as(err.toString()).isZero();
        assertThat(run("snapshots", "rollback", "--scope", "pinned", "--reason", "again")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("rollback of scope 'pinned' from 7 to version 6");

        // A second trim: the pin moved to 6, so 7 is no longer held as pinned, but as the version this rollback moved
        // away from (a version rolled back from stays readable, and never becomes a rollback target); 6's rollback
        // target is now 1 (2–5 are gone), which stays anyway as a forest carrier.
        assertThat(run("snapshots", "trim", "--scope", "pinned", "--keep", "1000")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("holding 7: rolled back from").contains("holding 6: active, pinned")
                .contains("holding 1: rollback target").contains("nothing to delete");
    }

    /**
     * {@code --all-scopes}, the CronJob's mode: each scope is planned alone; one with nothing to delete is not fenced,
     * and one with a record the CLI cannot decode (which may be what readers need) is not trimmed and makes the run
     * exit 1 after the others were trimmed. (The other tests' scopes are on the topic too; each is done by then.)
     */
    @Test
    void allScopesTrimsEachScopeButOneWithAnUndecodableRecord() throws Exception {
        publish("all-a", 1200);
        publish("all-b", 500);
        publish("garbled", 1200);
        try (KafkaProducer<byte[], byte[]> p = SnapshotsFixtures.producer(kafka.bootstrapServers(), new Properties())) {
            p.send(new ProducerRecord<>(Topics.PARAMS, Topics.paramsKey("garbled", 1201).getBytes(StandardCharsets.UTF_8),
                    "not avro".getBytes(StandardCharsets.UTF_8))).get();
        }

        assertThat(run("snapshots", "trim", "--all-scopes", "--keep", "1000", "--batch", "50")).isEqualTo(1);

        assertThat(out.toString()).contains("scope all-a: 199 versions deleted").contains("deleted 199 of 199")
                .contains("scope all-b: 500 versions on tierroute.params").contains("scope all-b: nothing to delete");
        assertThat(err.toString()).contains("scope garbled: 1 record(s) of scope 'garbled'")
                .contains("could not be decoded").contains("scope(s) [garbled] not trimmed");
        Set<Long> a = range(201, 1200);
        a.add(1L); // the forest carrier of 201..1200
        assertThat(versionsAfterCompaction("all-a")).isEqualTo(a);
        assertThat(versionsAfterCompaction("all-b")).isEqualTo(range(1, 500));
        assertThat(versionsAfterCompaction("garbled")).hasSize(1201);
    }

    /**
     * A trim whose deletions commit while the fitting job's transaction is open: they lie past the committed end, so a
     * pin of a deleted version waits for them (and says so when it gives up), then is refused; a pin of another scope
     * does not wait for the open transaction at all.
     */
    @Test
    void aPinWaitsForATrimsDeletionsBehindAnOpenJobTransaction() throws Exception {
        publish("behind", 1200);
        publish("beside", 10);
        Properties tx = new Properties();
        tx.put("bootstrap.servers", kafka.bootstrapServers());
        tx.put("transactional.id", "tierroute-params-trim-test-job");
        try (KafkaProducer<byte[], byte[]> job = new KafkaProducer<>(tx,
                new org.apache.kafka.common.serialization.ByteArraySerializer(),
                new org.apache.kafka.common.serialization.ByteArraySerializer())) {
            job.initTransactions();
            job.beginTransaction();
            job.send(new ProducerRecord<>(Topics.PARAMS, Topics.paramsKey("behind", 1201).getBytes(StandardCharsets.UTF_8),
                    Codecs.PARAMETER_SNAPSHOT.encode(SnapshotsFixtures.accepted("behind", 1201).build()))).get();
            assertThat(run("snapshots", "trim", "--scope", "behind", "--keep", "1000")).as(err.toString()).isZero();
            assertThat(out.toString()).contains("deleting 199 versions: 2–200");

            assertThat(run("snapshots", "pin", "5", "--scope", "behind", "--reason", "r", "--timeout", "3")).isEqualTo(1);
            assertThat(err.toString()).contains("open transaction of the fitting job");
            assertThat(run("snapshots", "pin", "5", "--scope", "beside", "--reason", "r")).as(err.toString()).isZero();

            job.commitTransaction();
        }
        assertThat(run("snapshots", "pin", "5", "--scope", "behind", "--reason", "r")).isEqualTo(1);
        // Not "it holds versions 1..1201", which reads as if 5 were among them: how many, and that 5 is not on the topic.
        assertThat(err.toString()).contains("version 5 of scope 'behind' is not on tierroute.params (trimmed, or never "
                + "published); it holds 1002 versions of the scope, the oldest 1, the newest 1201");
        assertThat(run("snapshots", "pin", "999", "--scope", "behind", "--reason", "r")).as(err.toString()).isZero();
    }

    @Test
    void aDryRunPrintsThePlanAndDeletesNothing() {
        publish("dry", 1500);

        assertThat(run("snapshots", "trim", "--scope", "dry", "--keep", "1000", "--dry-run")).as(err.toString()).isZero();

        assertThat(out.toString()).contains("would delete 499 versions: 2–500").contains("dry run: nothing deleted");
        assertThat(versionsAfterCompaction("dry")).isEqualTo(range(1, 1500));
    }

    @Test
    void keepingFewerThanDesignAsksIsABadCommandLine() {
        assertThat(run("snapshots", "trim", "--scope", "dry", "--keep", "999")).isEqualTo(2);
        assertThat(err.toString()).contains("--keep must be at least 1000");
    }

    /** On the old code --scope was silently ignored and every scope trimmed. */
    @Test
    void aScopeWithAllScopesIsABadCommandLine() {
        for (String flag : new String[] {"-s", "--scope"}) {
            err.getBuffer().setLength(0);
            assertThat(run("snapshots", "trim", "--all-scopes", flag, "either", "--keep", "1000")).isEqualTo(2);
            assertThat(err.toString()).startsWith("give --scope or --all-scopes, not both");
        }
    }

    @Test
    void aBatchBelowOneIsABadCommandLine() {
        assertThat(run("snapshots", "trim", "--scope", "dry", "--batch", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("--batch must be at least 1");
    }

    @Test
    void anUnknownScopeIsRefused() {
        assertThat(run("snapshots", "trim", "--scope", "nowhere")).isEqualTo(1);
        assertThat(err.toString()).contains("unknown scope 'nowhere'");
    }
}
