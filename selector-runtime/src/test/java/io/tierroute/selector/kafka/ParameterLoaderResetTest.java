package io.tierroute.selector.kafka;

import io.tierroute.deploy.local.KafkaBrokerProcess;
import io.tierroute.deploy.local.LoopbackPorts;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.params.ParameterStore;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.tierroute.selector.kafka.KafkaFixture.await;
import static io.tierroute.selector.kafka.KafkaFixture.control;
import static io.tierroute.selector.kafka.KafkaFixture.fv;
import static io.tierroute.selector.kafka.KafkaFixture.publish;
import static io.tierroute.selector.kafka.KafkaFixture.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A running loader whose history goes away under it, against real brokers: the topics deleted and created again (the
 * shared embedded broker), and the broker replaced by a new cluster on the same port (child JVM brokers). The new
 * history wins, lower versions and a lower control sequence included, and the old set is served until it is read.
 */
class ParameterLoaderResetTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    /**
     * The identity's waits in the tests of a cluster that does not answer: shorter than production's 5 s and 10 s, and
     * as far apart (the question must still be out when the first wait ends, whatever else the machine runs).
     */
    private static final Duration CONFIRM_WAIT = Duration.ofSeconds(2);
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(7);
    /**
     * The confirm wait (and answer timeout) of the identity whose wait a stop ends: long, so that a wait the stop did
     * not end stays far above the bound on one it ended, which includes making the Admin client (slow on a loaded
     * machine).
     */
    private static final Duration STOP_WAIT = Duration.ofSeconds(30);
    /** alphaD of every snapshot of the new history: tells its parameters from the old ones of the same version. */
    private static final double NEW_ALPHA_D = 77;

    private final List<ParameterLoader> loaders = new ArrayList<>();
    private final List<double[]> served = new CopyOnWriteArrayList<>(); // {version, alphaD} of every activation

    @BeforeEach
    void setUp() throws Exception {
        KafkaFixture.resetTopics();
    }

    @AfterEach
    void tearDown() {
        loaders.forEach(ParameterLoader::close);
    }

    private ParameterStore watchedStore() {
        ParameterStore store = KafkaFixture.loaderStore();
        store.onActivate(ps -> served.add(new double[] {ps.version(), ps.cost().alphaD()}));
        return store;
    }

    private ParameterLoader start(KafkaSettings settings, ParameterStore store) throws InterruptedException {
        return KafkaFixture.startLoader(settings, store, ParameterLoader.DEFAULT_INDEXED_VERSIONS, loaders, WAIT);
    }

    private static void publishNew(KafkaProducer<byte[], byte[]> p, long fromVersion, long toVersion) {
        for (long v = fromVersion; v <= toVersion; v++) {
            publish(p, snapshot("default", v).setAlphaD(fv(NEW_ALPHA_D)).build());
        }
    }

    /** After the old version: only the new history's sets, and never the configured one (version 0). */
    private void assertServedOldThenOnlyNew(long oldVersion) {
        assertThat(served.get(0)[0]).as("the old history's version first").isEqualTo(oldVersion);
        assertThat(served.subList(1, served.size())).as("then only sets of the new history, never none")
                .allSatisfy(s -> {
                    assertThat(s[0]).isPositive();
                    assertThat(s[1]).isEqualTo(NEW_ALPHA_D);
                });
    }

    @Test
    void topicsCreatedAgainWithLowerVersionsAndANewPinAreFollowed() throws Exception {
        try (KafkaProducer<byte[], byte[]> p = KafkaFixture.producer()) {
            for (long v = 1; v <= 12; v++) {
                publish(p, snapshot("default", v).build());
            }
            control(p, "default", ControlAction.PIN, 10L, 1);
            control(p, "default", ControlAction.UNPIN, 10L, 2);
            control(p, "default", ControlAction.PIN, 11L, 3);
        }
        ParameterStore store = watchedStore();
        ParameterLoader l = start(KafkaFixture.settings(), store);
        assertThat(store.current().version()).isEqualTo(11);

        KafkaFixture.resetTopics(); // both topics deleted and created again: empty, positions past their ends
        try (KafkaProducer<byte[], byte[]> p = KafkaFixture.producer()) {
            publishNew(p, 1, 4);
            control(p, "default", ControlAction.PIN, 3L, 1); // sequence 1: stale to the old history (at 3)
        }

        await(WAIT, () -> store.current().version() == 3 && store.current().cost().alphaD() == NEW_ALPHA_D
                && l.status().scopes().get("default").controlSequence() == 1, "the new history's pin on 3");
        ParameterLoader.ScopeStatus st = l.status().scopes().get("default");
        assertThat(st.pinned()).isTrue();
        assertThat(st.pinnedVersion()).isEqualTo(3L);
        assertThat(st.activeVersion()).isEqualTo(3L);
        assertThat(l.status().appliedVersion()).isEqualTo(3);
        assertThat(l.historyResets()).isPositive();
        assertThat(l.status().historyResets()).isPositive();
        assertThat(l.status().lastHistoryReset()).containsAnyOf("recreated or truncated", "deleted and created again");
        assertThat(l.restarts()).as("a reset is no consumer failure").isZero();
        assertServedOldThenOnlyNew(11);
        Map<String, Object> block = new KafkaPartsReport(KafkaFixture.broker().bootstrapServers(), "default", null, l,
                null, null).status();
        assertThat(String.valueOf(block.get("params"))).contains("history_resets=").contains("last_history_reset=");
    }

    @Test
    void aNewLogThatGrewPastThePositionIsToldByItsTopicIdAndTheSameVersionNumberIsAppliedAgain() throws Exception {
        try (KafkaProducer<byte[], byte[]> p = KafkaFixture.producer()) {
            for (long v = 1; v <= 3; v++) {
                publish(p, snapshot("default", v).build());
            }
        }
        ParameterStore store = watchedStore();
        ParameterLoader l = start(KafkaFixture.settings(), store);
        assertThat(store.current().version()).isEqualTo(3);
        // The loader's thread swaps version 4 in and then waits in this listener while the topics are replaced by a
        // log at least as long as its position (4): no fetch in between, so no position past an end tells.
        CountDownLatch swapping = new CountDownLatch(1);
        CountDownLatch replaced = new CountDownLatch(1);
        store.onActivate(ps -> {
            if (ps.version() == 4 && swapping.getCount() > 0) {
                swapping.countDown();
                awaitQuietly(replaced);
            }
        });
        try (KafkaProducer<byte[], byte[]> p = KafkaFixture.producer()) {
            publish(p, snapshot("default", 4).build());
            assertThat(swapping.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("version 4 being swapped in").isTrue();
            KafkaFixture.resetTopics();
        }
        try (KafkaProducer<byte[], byte[]> p = KafkaFixture.producer()) {
            publishNew(p, 1, 4);
        }
        replaced.countDown();

        await(WAIT, () -> store.current().cost().alphaD() == NEW_ALPHA_D, "version 4 of the new history applied");
        assertThat(store.current().version()).as("the same number, other parameters").isEqualTo(4);
        assertThat(l.historyResets()).isEqualTo(1);
        assertThat(l.status().lastHistoryReset()).contains("was deleted and created again (topic id ");
        assertThat(served).hasSize(3); // 3 and 4 of the old history, 4 of the new
        assertThat(served.get(2)).containsExactly(4.0, NEW_ALPHA_D);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** An identity that asks a cluster that is not there, with the tests' short waits. */
    private static HistoryIdentity identityOfNowhere(String nowhere, Duration period) {
        return identityOfNowhere(nowhere, period, CONFIRM_WAIT, ANSWER_TIMEOUT);
    }

    private static HistoryIdentity identityOfNowhere(String nowhere, Duration period, Duration confirmWait,
                                                     Duration answerTimeout) {
        return new HistoryIdentity(() -> KafkaClients.admin(KafkaSettings.defaults(nowhere), "identity-test"), nowhere,
                List.of(Topics.PARAMS, Topics.CONTROL), period, confirmWait, answerTimeout);
    }

    /**
     * A cluster that does not answer: the first confirm waits its whole wait and lets the records through;
     * the next does not wait again while that question is out (records a dead broker left buffered are not held
     * 5 s each poll); and a stop ends a wait at once, so close() is not held up.
     */
    @Test
    void confirmWaitsOnceForAClusterThatDoesNotAnswerAndNotPastAStop() {
        String nowhere = "127.0.0.1:" + LoopbackPorts.free();
        try (HistoryIdentity identity = identityOfNowhere(nowhere, Duration.ofHours(1))) {
            long start = System.nanoTime();
            assertThat(identity.confirm(() -> true)).isNull();
            long firstMs = (System.nanoTime() - start) / 1_000_000;
            start = System.nanoTime();
            assertThat(identity.confirm(() -> true)).isNull();
            long secondMs = (System.nanoTime() - start) / 1_000_000;
            assertThat(firstMs).as("waited for an answer").isGreaterThanOrEqualTo(CONFIRM_WAIT.toMillis());
            assertThat(secondMs).as("no second wait while the first question is out").isLessThan(1_000);
        }
        try (HistoryIdentity identity = identityOfNowhere(nowhere, Duration.ofHours(1), STOP_WAIT, STOP_WAIT)) {
            long start = System.nanoTime();
            assertThat(identity.confirm(() -> false)).isNull(); // makes the Admin client, asks, and is stopped
            assertThat((System.nanoTime() - start) / 1_000_000).as("a stop ends the wait, of " + STOP_WAIT)
                    .isLessThan(STOP_WAIT.toMillis() / 3);
        }
    }

    /**
     * Once the question a confirm gave up on has been answered (here: failed at the Admin client's answer timeout),
     * by a check between two polls that returned records, the next confirm asks anew and waits again: a question
     * check() asked since may predate the records.
     */
    @Test
    void confirmWaitsAgainOnceTheQuestionItGaveUpOnHasBeenAnswered() {
        String nowhere = "127.0.0.1:" + LoopbackPorts.free();
        try (HistoryIdentity identity = identityOfNowhere(nowhere, Duration.ofMillis(50))) {
            assertThat(identity.confirm(() -> true)).isNull(); // waits, then gives up on its question
            await(Duration.ofSeconds(30), () -> identity.check() == null && identity.answersTaken() > 0,
                    "the given-up question answered (failed) and taken by check()");
            long start = System.nanoTime();
            assertThat(identity.confirm(() -> true)).isNull();
            assertThat((System.nanoTime() - start) / 1_000_000).as("waited again, for a question of its own")
                    .isGreaterThanOrEqualTo(CONFIRM_WAIT.toMillis());
        }
    }

    @Test
    void historyIdentityTellsATopicDeletedAndCreatedAgain() throws Exception {
        KafkaSettings settings = KafkaFixture.settings();
        try (HistoryIdentity identity = new HistoryIdentity(() -> KafkaClients.admin(settings, "identity-test"),
                settings.bootstrapServers(), List.of(Topics.PARAMS, Topics.CONTROL), Duration.ofMillis(50))) {
            await(WAIT, () -> identity.check() == null && identity.topicId(Topics.CONTROL) != null
                    && identity.clusterId() != null, "the first answer");
            var before = identity.topicId(Topics.PARAMS);
            for (int i = 0; i < 5; i++) { // unchanged topics: no change, however often asked
                Thread.sleep(60);
                assertThat(identity.check()).isNull();
            }
            KafkaFixture.resetTopics();
            String[] change = new String[1];
            await(WAIT, () -> (change[0] = identity.check()) != null, "the change");
            assertThat(change[0]).matches("tierroute\\.(params|control) was deleted and created again \\(topic id .+, "
                    + "was .+\\)");
            await(WAIT, () -> identity.check() == null && identity.topicId(Topics.PARAMS) != null
                    && !identity.topicId(Topics.PARAMS).equals(before), "the new params topic id");
        }
    }

    /** Asked before records are applied, the identity answers at once, however far away the periodic question is. */
    @Test
    void historyIdentityConfirmedBeforeApplyingTellsAChangeAtOnce() throws Exception {
        KafkaSettings settings = KafkaFixture.settings();
        try (HistoryIdentity identity = new HistoryIdentity(() -> KafkaClients.admin(settings, "identity-test"),
                settings.bootstrapServers(), List.of(Topics.PARAMS, Topics.CONTROL), Duration.ofHours(1))) {
            await(WAIT, () -> identity.confirm(() -> true) == null && identity.topicId(Topics.PARAMS) != null
                    && identity.topicId(Topics.CONTROL) != null && identity.confirm(() -> true) == null,
                    "the first answer, twice the same: the reference");
            assertThat(identity.confirm(() -> true)).as("the same topics").isNull();
            var params = identity.topicId(Topics.PARAMS);
            var control = identity.topicId(Topics.CONTROL);
            KafkaFixture.resetTopics();
            assertThat(identity.check()).as("the periodic question: an hour away").isNull();
            // The broker may learn of the new topics one at a time: each confirm tells what changed since the last.
            List<String> changes = new ArrayList<>();
            await(WAIT, () -> {
                String c = identity.confirm(() -> true);
                if (c != null) {
                    changes.add(c);
                }
                return !params.equals(identity.topicId(Topics.PARAMS)) && !control.equals(identity.topicId(Topics.CONTROL));
            }, "both new topic ids, told by confirm");
            assertThat(changes).isNotEmpty().allSatisfy(c -> assertThat(c)
                    .matches("tierroute\\.(params|control) was deleted and created again .+"));
            assertThat(identity.confirm(() -> true)).as("the new topics are the reference now").isNull();
        }
    }

    /**
     * The broker replaced by a new cluster on the same port whose log is already longer than the loader's position: no
     * position past an end tells. The periodic question is an hour apart here: the one asked before the records fetched
     * from the new log are applied (or the consumer's own check of its position against the new log) must tell.
     */
    @Test
    void aBrokerReplacedByANewClusterOnTheSamePortIsReadAgainFromScratch(@TempDir Path tmp) throws Exception {
        int port = LoopbackPorts.free();
        int controllerPort = LoopbackPorts.free();
        KafkaBrokerProcess first = broker(tmp.resolve("first"), port, controllerPort);
        ParameterStore store = watchedStore();
        ParameterLoader l;
        try (first) {
            first.start(Duration.ofSeconds(120));
            String bootstrap = first.bootstrapServers();
            createTopics(bootstrap);
            try (KafkaProducer<byte[], byte[]> p = producer(bootstrap)) {
                for (long v = 1; v <= 3; v++) {
                    publish(p, snapshot("default", v).build());
                }
            }
            l = new ParameterLoader(KafkaSettings.defaults(bootstrap), store, KafkaFixture.loaderConverter(),
                    ParameterLoader.DEFAULT_INDEXED_VERSIONS, Duration.ofHours(1)).start();
            loaders.add(l);
            assertThat(l.awaitReady(WAIT)).as("loader ready").isTrue();
            assertThat(store.current().version()).isEqualTo(3);
        }
        try (KafkaBrokerProcess second = broker(tmp.resolve("second"), port, controllerPort)) {
            second.start(Duration.ofSeconds(120)); // formatted anew: another cluster id, on the same address
            createTopics(second.bootstrapServers());
            try (KafkaProducer<byte[], byte[]> p = producer(second.bootstrapServers())) {
                publishNew(p, 1, 6);
                control(p, "default", ControlAction.PIN, 2L, 1);
            }
            await(Duration.ofSeconds(60), () -> store.current().version() == 2
                    && store.current().cost().alphaD() == NEW_ALPHA_D
                    && l.status().scopes().get("default").controlSequence() == 1, "the new cluster's pin on 2");
            assertThat(l.status().scopes().get("default").pinnedVersion()).isEqualTo(2L);
            assertThat(l.historyResets()).as("one reset: the new cluster's topics are not a second change").isEqualTo(1);
            assertThat(l.status().lastHistoryReset()).containsAnyOf("is another cluster now (cluster id ",
                    "recreated or truncated");
            assertServedOldThenOnlyNew(3);
            System.out.println("[measured] new cluster noticed by: " + l.status().lastHistoryReset());
        } finally {
            l.close();
        }
    }

    private static KafkaBrokerProcess broker(Path dir, int port, int controllerPort) {
        List<Path> classpath = java.util.Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(Path::of).toList();
        return new KafkaBrokerProcess(new KafkaBrokerProcess.Settings(dir, port, controllerPort, classpath,
                "tierroute-test:" + dir, Map.of()));
    }

    private static void createTopics(String bootstrap) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            List<NewTopic> topics = new ArrayList<>();
            for (Topics.Spec s : Topics.specs()) {
                if (s.name().equals(Topics.PARAMS) || s.name().equals(Topics.CONTROL)) {
                    topics.add(new NewTopic(s.name(), s.partitions(), (short) 1).configs(s.configs()));
                }
            }
            admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("max.request.size", Integer.toString(8 * 1024 * 1024));
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }
}
