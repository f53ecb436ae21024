package io.tierroute.selector.kafka;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ReplicaAdmitted;
import io.tierroute.schemas.avro.ReplicaSyncMessage;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.scheduling.ReportedEvent;
import io.tierroute.selector.scheduling.RouteRequest;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.scheduling.SelectorSettings;
import io.tierroute.selector.scheduling.WorkerSpec;
import io.tierroute.selector.sequences.RequestEvent;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Replica sync over a real broker: selectors with their {@link ReplicaSyncLink} on {@code tierroute.replica-sync},
 * as two replicas of one deployment run it.
 */
class ReplicaSyncKafkaTest {

    private static final Duration HEARD = Duration.ofSeconds(20);

    @BeforeEach
    void setUp() throws Exception {
        KafkaFixture.resetTopics();
    }

    private static KafkaSettings syncSettings(String selectorId) {
        KafkaSettings s = KafkaFixture.settings();
        return new KafkaSettings(s.bootstrapServers(), s.scope(), s.clientId(), selectorId, s.properties(), s.params(),
                s.kvEvents(), s.decisions(), new KafkaSettings.ReplicaSync(true, Duration.ofMinutes(2),
                Duration.ofSeconds(30), 1024));
    }

    /** A selector of three workers, as each replica of these tests runs. */
    static Selector selector() {
        List<WorkerSpec> specs = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            specs.add(WorkerSpec.of("w" + w, 1_000_000));
        }
        SelectorSettings settings = SelectorSettings.builder(specs).blockSize(16).model("m").seed(7L)
                .ownKvAccounting(true).build();
        NaiveReferenceIndex index = new NaiveReferenceIndex(3);
        return new Selector(settings, index, new DirectIndexWriter(index),
                new ParameterStore(ParameterSet.defaults(3)), System::nanoTime);
    }

    private static RouteRequest request(String id, int tokens) {
        int[] t = new int[tokens];
        for (int i = 0; i < t.length; i++) {
            t[i] = i * 31 + id.hashCode();
        }
        return new RouteRequest(id, null, null, null, t, null, null, null, 256, 64,
                new RouteRequest.AgentContext("wf-" + id, "0", List.of("search")), false);
    }

    @Test
    void twoReplicasHearEachOthersAdmissionsAndEventsWhicheverTheGatewayPostsTo() throws Exception {
        Selector a = selector();
        Selector b = selector();
        try (ReplicaSyncLink la = ReplicaSyncLink.start(syncSettings("a"), a, HEARD);
             ReplicaSyncLink lb = ReplicaSyncLink.start(syncSettings("b"), b, HEARD)) {
            long t0 = System.nanoTime();
            int w = a.route(request("r1", 4096)).get().workerIndex();
            KafkaFixture.await(HEARD, () -> b.inflight().view(w).inFlight() == 1, "b hears a's admission");
            System.out.printf("replica sync: an admission reached the other replica in %.1f ms%n",
                    (System.nanoTime() - t0) / 1e6);
            assertThat(b.inflight().view(w).waiting()).isEqualTo(1);
            assertThat(b.inflight().view(w).kvUsedTokens()).isEqualTo(4096);
            assertThat(b.inflight().view(w).decodeTokens()).isEqualTo(a.inflight().view(w).decodeTokens());

            // The gateway posts the first token to b, the finish to a.
            assertThat(b.report(new RequestEvent("r1", RequestEvent.Type.FIRST_TOKEN, 1))).isEqualTo(ReportedEvent.APPLIED);
            KafkaFixture.await(HEARD, () -> a.inflight().view(w).waiting() == 0, "a hears r1's first token");
            assertThat(a.report(new RequestEvent("r1", RequestEvent.Type.FINISHED, 40))).isEqualTo(ReportedEvent.APPLIED);
            KafkaFixture.await(HEARD, () -> b.inflight().view(w).inFlight() == 0, "b hears r1's finish");
            assertThat(a.inflight().size()).isZero();

            assertThat(lb.sync().admissionsApplied()).isEqualTo(1);
            assertThat(la.sync().eventsApplied()).isEqualTo(1);
            KafkaFixture.await(HEARD, () -> la.consumer().ownRecords() == 2, "a reads back its own two records");
            assertThat(la.sync().admissionsApplied()).as("its own admission is not applied twice").isZero();
            // The first send waited for the producer's metadata; these show the delay of a warm link (polled every
            // 0.2 ms: the figure the simulator's tierroute-2-replicas-synced delay is set from), each next to a bare
            // record's on the same broker, taken in turn since the host's speed changes within a run.
            long[] micros = new long[20];
            long[] bare = new long[micros.length];
            try (BareRecordDelay baseline = new BareRecordDelay(HEARD)) {
                for (int i = 0; i < micros.length; i++) {
                    long t1 = System.nanoTime();
                    int wi = b.route(request("later" + i, 512)).get().workerIndex();
                    int before = i;
                    while (a.inflight().size() != before + 1) {
                        assertThat(System.nanoTime() - t1).as("a hears b's admission " + i).isLessThan(HEARD.toNanos());
                        java.util.concurrent.locks.LockSupport.parkNanos(200_000);
                    }
                    micros[i] = (System.nanoTime() - t1) / 1000;
                    assertThat(a.inflight().workerOf("later" + i)).isEqualTo(wi);
                    bare[i] = baseline.nextMicros();
                }
            }
            java.util.Arrays.sort(micros);
            java.util.Arrays.sort(bare);
            System.out.printf("replica sync: 20 admissions reached the other replica in %.1f ms (min) / %.1f ms "
                    + "(median) / %.1f ms (max); a bare record on the same broker, taken in turn, %.1f / %.1f / %.1f ms "
                    + "(median ratio %.2f)%n", micros[0] / 1e3, micros[10] / 1e3, micros[19] / 1e3, bare[0] / 1e3,
                    bare[10] / 1e3, bare[19] / 1e3, (double) micros[10] / bare[10]);
            assertThat(la.consumer().lastDelayMillis()).isBetween(0L, HEARD.toMillis());
        }
    }

    @Test
    void anEventPostedBeforeTheAdmissionIsHeardWaitsForIt() throws Exception {
        Selector a = selector();
        Selector b = selector();
        try (ReplicaSyncLink la = ReplicaSyncLink.start(syncSettings("a"), a, HEARD);
             ReplicaSyncLink lb = ReplicaSyncLink.start(syncSettings("b"), b, HEARD)) {
            int w = a.route(request("r2", 2048)).get().workerIndex();
            // At once, before a's message can have reached b.
            assertThat(b.report(new RequestEvent("r2", RequestEvent.Type.FIRST_TOKEN, 1)))
                    .isIn(ReportedEvent.RELAYED, ReportedEvent.APPLIED);
            KafkaFixture.await(HEARD, () -> b.inflight().view(w).inFlight() == 1
                    && b.inflight().view(w).waiting() == 0, "b holds r2 as running");
            KafkaFixture.await(HEARD, () -> a.inflight().view(w).waiting() == 0, "a hears the first token");
            assertThat(lb.sync().pendingEvents()).isZero();
        }
    }

    @Test
    void aReplicaStartedLaterCountsTheRequestsStillInFlightAndSkipsBadRecords() throws Exception {
        Selector a = selector();
        try (ReplicaSyncLink la = ReplicaSyncLink.start(syncSettings("a"), a, HEARD);
             KafkaProducer<byte[], byte[]> p = KafkaFixture.producer()) {
            int running = a.route(request("still-running", 1024)).get().workerIndex();
            a.route(request("done", 1024)).get();
            a.report(new RequestEvent("done", RequestEvent.Type.FINISHED, 10));
            KafkaFixture.await(HEARD, () -> la.publisher().acknowledged() == 3, "a's three messages acknowledged");
            KafkaFixture.send(p, Topics.REPLICA_SYNC, "junk", new byte[] {1, 2, 3});
            KafkaFixture.send(p, Topics.REPLICA_SYNC, "elsewhere", Codecs.REPLICA_SYNC_MESSAGE.encode(
                    ReplicaSyncMessage.newBuilder().setReplicaId("other").setSelectorId("x").setScope("default").setTimestampMs(
                            System.currentTimeMillis()).setRequestId("elsewhere").setMessage(ReplicaAdmitted.newBuilder()
                            .setWorker("no-such-worker").setPromptTokens(10).setPredictedOutputTokens(5)
                            .setPrefillTokens(10).setTierTokens(List.of()).setPrefixMarks(List.of())
                            .setPrefixMarkTokens(0).setExpectedNextTools(List.of()).build()).build()));
            KafkaFixture.send(p, Topics.REPLICA_SYNC, "bad-tiers", Codecs.REPLICA_SYNC_MESSAGE.encode(
                    ReplicaSyncMessage.newBuilder().setReplicaId("other").setSelectorId("x").setScope("default").setTimestampMs(
                            System.currentTimeMillis()).setRequestId("bad-tiers").setMessage(ReplicaAdmitted.newBuilder()
                            .setWorker("w0").setPromptTokens(10).setPredictedOutputTokens(5)
                            .setPrefillTokens(10).setTierTokens(List.of(1L, 2L)).setPrefixMarks(List.of())
                            .setPrefixMarkTokens(0).setExpectedNextTools(List.of()).build()).build()));

            KafkaFixture.send(p, Topics.REPLICA_SYNC, "long-workflow", Codecs.REPLICA_SYNC_MESSAGE.encode(
                    ReplicaSyncMessage.newBuilder().setReplicaId("other").setSelectorId("x").setScope("default").setTimestampMs(0)
                            .setRequestId("long-workflow").setMessage(ReplicaAdmitted.newBuilder()
                            .setWorker("w0").setPromptTokens(10).setPredictedOutputTokens(5)
                            .setPrefillTokens(10).setTierTokens(List.of()).setPrefixMarks(List.of())
                            .setPrefixMarkTokens(0).setWorkflowId("x".repeat(257)).setExpectedNextTools(List.of())
                            .build()).build()));

            KafkaFixture.send(p, Topics.REPLICA_SYNC, "pool-b", Codecs.REPLICA_SYNC_MESSAGE.encode(
                    ReplicaSyncMessage.newBuilder().setReplicaId("other").setSelectorId("x").setScope("pool-b")
                            .setTimestampMs(System.currentTimeMillis()).setRequestId("pool-b").setMessage(
                                    ReplicaAdmitted.newBuilder().setWorker("w0").setPromptTokens(10)
                                            .setPredictedOutputTokens(5).setPrefillTokens(10).setTierTokens(List.of())
                                            .setPrefixMarks(List.of()).setPrefixMarkTokens(0)
                                            .setExpectedNextTools(List.of()).build()).build()));

            Selector c = selector();
            try (ReplicaSyncLink lc = ReplicaSyncLink.start(syncSettings("c"), c, HEARD)) {
                KafkaFixture.await(HEARD, () -> lc.consumer().records() >= 8, "c reads back what was sent before it");
                assertThat(lc.consumer().otherScopeRecords()).as("another deployment's w0 is not ours").isEqualTo(1);
                assertThat(c.inflight().view(running).inFlight()).as("still-running counts; done came and went")
                        .isEqualTo(c.inflight().size()).isEqualTo(1);
                assertThat(c.inflight().workerOf("still-running")).isEqualTo(running);
                assertThat(lc.consumer().badRecords(ReplicaSyncConsumer.BadReason.CORRUPT)).isEqualTo(1);
                assertThat(lc.consumer().badRecords(ReplicaSyncConsumer.BadReason.UNKNOWN_WORKER)).isEqualTo(1);
                assertThat(lc.consumer().badRecords(ReplicaSyncConsumer.BadReason.INVALID))
                        .as("four tier counts too few; a workflow id of 257 characters").isEqualTo(2);

                a.report(new RequestEvent("still-running", RequestEvent.Type.FINISHED, 10));
                KafkaFixture.await(HEARD, () -> c.inflight().size() == 0, "c hears the finish after the bad records");
            }
        }
    }
}
