package io.tierroute.selector.kafka;

import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.config.KafkaSettings.HostPort;
import io.tierroute.selector.scheduling.RouteRequest;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.sequences.RequestEvent;
import io.tierroute.selector.sync.direct.UdpPorts;
import io.tierroute.selector.sync.wire.ReplicaSyncInbound.Outcome;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Replica sync with the direct path beside Kafka, as a deployment configures it ({@code kafka.replicaSync.direct}):
 * each message goes both ways under one number, the datagram usually first, and Kafka's copy is dropped.
 */
class ReplicaSyncDirectKafkaTest {

    private static final Duration HEARD = Duration.ofSeconds(20);
    private static final String KEY_ENV = "TEST_REPLICA_KEY";
    private static final Map<String, String> ENV = Map.of(KEY_ENV, "0123456789abcdef".repeat(3));

    @BeforeEach
    void setUp() throws Exception {
        KafkaFixture.resetTopics();
    }

    private static KafkaSettings settings(String selectorId, int listen, List<Integer> peers) {
        KafkaSettings s = KafkaFixture.settings();
        KafkaSettings.Direct direct = new KafkaSettings.Direct(new HostPort("127.0.0.1", listen),
                peers.stream().map(p -> new HostPort("127.0.0.1", p)).toList(), KEY_ENV, Duration.ofSeconds(5), 1024);
        return new KafkaSettings(s.bootstrapServers(), s.scope(), s.clientId(), selectorId, s.properties(), s.params(),
                s.kvEvents(), s.decisions(), new KafkaSettings.ReplicaSync(true, Duration.ofMinutes(2),
                Duration.ofSeconds(30), 1024, direct));
    }

    private static int freePort() throws IOException {
        try (DatagramChannel c = DatagramChannel.open()) {
            c.bind(new InetSocketAddress("127.0.0.1", 0));
            return ((InetSocketAddress) c.getLocalAddress()).getPort();
        }
    }

    private static Selector selector() {
        return ReplicaSyncKafkaTest.selector();
    }

    private static RouteRequest request(String id, int tokens) {
        int[] t = new int[tokens];
        for (int i = 0; i < t.length; i++) {
            t[i] = i * 31 + id.hashCode();
        }
        return new RouteRequest(id, null, null, null, t, null, null, null, 256, 64, null, false);
    }

    @Test
    void admissionsComeByDatagramAndKafkasLaterCopiesAreDroppedNotTakenForANewRequest() throws Exception {
        int[] ports = UdpPorts.free(2); // distinct: each replica binds its own
        int pa = ports[0];
        int pb = ports[1];
        Selector a = selector();
        Selector b = selector();
        try (ReplicaSyncLink la = ReplicaSyncLink.start(settings("a", pa, List.of(pa, pb)), a, HEARD, ENV::get);
             ReplicaSyncLink lb = ReplicaSyncLink.start(settings("b", pb, List.of(pa, pb)), b, HEARD, ENV::get)) {
            int w = a.route(request("r1", 4096)).get().workerIndex();
            KafkaFixture.await(HEARD, () -> b.inflight().view(w).inFlight() == 1, "b hears a's admission");
            a.report(new RequestEvent("r1", RequestEvent.Type.FIRST_TOKEN, 1));
            a.report(new RequestEvent("r1", RequestEvent.Type.FINISHED, 40));
            KafkaFixture.await(HEARD, () -> b.inflight().size() == 0, "b hears r1's finish");
            // Kafka's three copies come after the finish (or the datagrams' after Kafka's): either way one of each
            // is applied, and r1 is not admitted again.
            KafkaFixture.await(HEARD, () -> lb.sync().duplicateMessages() == 3, "b drops the second copy of all three");
            assertThat(b.inflight().size()).isZero();
            assertThat(lb.sync().admissionsApplied()).isEqualTo(1);
            assertThat(lb.sync().lateEvents()).isZero();
            // The sync counts a copy before the path counts its outcome: wait for the paths' counts too.
            KafkaFixture.await(HEARD, () -> lb.direct().received(Outcome.HANDED_OVER) + lb.consumer().handedOver() == 3,
                    "each of the three applied once, by whichever path brought it first");
            KafkaFixture.await(HEARD, () -> lb.direct().received(Outcome.DUPLICATE) + lb.consumer().duplicateRecords()
                    == 3, "each one's other copy dropped by its path");

            // A warm link's delay, direct path on, each next to a bare Kafka record's, taken in turn.
            long[] micros = new long[20];
            long[] bare = new long[micros.length];
            try (BareRecordDelay baseline = new BareRecordDelay(HEARD)) {
                for (int i = 0; i < micros.length; i++) {
                    long t1 = System.nanoTime();
                    b.route(request("later" + i, 512)).get();
                    int before = i;
                    while (a.inflight().size() != before + 1) {
                        assertThat(System.nanoTime() - t1).as("a hears b's admission " + i).isLessThan(HEARD.toNanos());
                        java.util.concurrent.locks.LockSupport.parkNanos(100_000);
                    }
                    micros[i] = (System.nanoTime() - t1) / 1000;
                    bare[i] = baseline.nextMicros();
                }
            }
            Arrays.sort(micros);
            Arrays.sort(bare);
            System.out.printf("replica sync with the direct path: 20 admissions reached the other replica in %.2f ms "
                    + "(min) / %.2f ms (median) / %.2f ms (max); a bare Kafka record on the same broker, taken in turn, "
                    + "%.2f / %.2f / %.2f ms (median ratio %.3f)%n", micros[0] / 1e3, micros[10] / 1e3,
                    micros[19] / 1e3, bare[0] / 1e3, bare[10] / 1e3, bare[19] / 1e3, (double) micros[10] / bare[10]);
            KafkaFixture.await(HEARD, () -> lb.sync().duplicateMessages() + la.sync().duplicateMessages() == 3 + 20,
                    "a drops the second copy of b's twenty admissions");
            assertThat(a.inflight().size()).isEqualTo(20);
            assertThat(la.direct().received(Outcome.OWN)).as("a skips its own datagrams").isEqualTo(3);
        }
    }

    @Test
    void aDirectSectionWithoutItsKeyFailsTheStartClearly() throws Exception {
        int p = freePort();
        assertThatThrownBy(() -> ReplicaSyncLink.start(settings("a", p, List.of(p)), selector(), HEARD, k -> null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("environment variable " + KEY_ENV + " is not");
        assertThatThrownBy(() -> ReplicaSyncLink.start(settings("a", p, List.of(p)), selector(), HEARD, k -> "short"))
                .hasMessageContaining("has 5 characters; at least 32");
    }

    @Test
    void aPortInUseFailsTheStartNamingItAndLeavesNothingRunning() throws Exception {
        try (DatagramChannel taken = DatagramChannel.open()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            int p = ((InetSocketAddress) taken.getLocalAddress()).getPort();
            java.util.Set<String> before = threadNames();
            assertThatThrownBy(() -> ReplicaSyncLink.start(settings("a", p, List.of(p)), selector(), HEARD, ENV::get))
                    .hasMessageContaining("cannot receive replica datagrams on /127.0.0.1:" + p);
            // The publisher's producer is built with it (its network thread runs from then): it must be closed too.
            KafkaFixture.await(HEARD, () -> threadNames().stream().noneMatch(n -> !before.contains(n)
                    && (n.startsWith("tierroute-replica") || n.startsWith("kafka-producer-network-thread"))),
                    "no replica sync or producer thread left behind");
        }
    }

    private static java.util.Set<String> threadNames() {
        java.util.Set<String> names = new java.util.HashSet<>();
        Thread.getAllStackTraces().keySet().forEach(t -> names.add(t.getName()));
        return names;
    }
}
