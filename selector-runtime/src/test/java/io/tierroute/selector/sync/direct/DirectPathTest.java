package io.tierroute.selector.sync.direct;

import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.config.KafkaSettings.HostPort;
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
import io.tierroute.selector.sync.NumberingTransport;
import io.tierroute.selector.sync.ReplicaSync;
import io.tierroute.selector.sync.wire.ReplicaSyncInbound.Outcome;
import io.tierroute.selector.sync.wire.ReplicaSyncWire;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Two selector replicas joined by the direct path alone, over real UDP sockets on loopback. */
class DirectPathTest {

    private static final String KEY = "k".repeat(40);
    private static final Duration HEARD = Duration.ofSeconds(10);

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private record Replica(Selector selector, ReplicaSync sync, DirectPath path) {}

    private static Selector selector() {
        List<WorkerSpec> specs = List.of(WorkerSpec.of("w0", 1_000_000), WorkerSpec.of("w1", 1_000_000),
                WorkerSpec.of("w2", 1_000_000));
        SelectorSettings settings = SelectorSettings.builder(specs).blockSize(16).seed(7L).ownKvAccounting(true).build();
        NaiveReferenceIndex index = new NaiveReferenceIndex(3);
        return new Selector(settings, index, new DirectIndexWriter(index),
                new ParameterStore(ParameterSet.defaults(3)), System::nanoTime);
    }

    /** A port free on loopback now (bound and released: the test binds it again at once). */
    private static int freePort() throws IOException {
        try (DatagramChannel c = DatagramChannel.open()) {
            c.bind(new InetSocketAddress("127.0.0.1", 0));
            return ((InetSocketAddress) c.getLocalAddress()).getPort();
        }
    }

    private Replica replica(String id, int port, List<Integer> peers, String key) {
        return replicaTo(id, port, peers.stream().map(p -> new HostPort("127.0.0.1", p)).toList(), key);
    }

    private Replica replicaTo(String id, int port, List<HostPort> to, String key) {
        Selector s = selector();
        KafkaSettings.Direct d = new KafkaSettings.Direct(new HostPort("127.0.0.1", port), to,
                KafkaSettings.Direct.DEFAULT_KEY_ENV, Duration.ofSeconds(5), 1024);
        DirectPath path = DirectPath.open(d, key, new ReplicaSyncWire(id, id, "default", s.registry()));
        open.add(path);
        ReplicaSync sync = new ReplicaSync(s, new NumberingTransport(List.of(path)), System::nanoTime,
                Duration.ofSeconds(30), 1000);
        path.start(sync);
        sync.install();
        return new Replica(s, sync, path);
    }

    private static RouteRequest request(String id, int tokens) {
        int[] t = new int[tokens];
        for (int i = 0; i < t.length; i++) {
            t[i] = i * 31 + id.hashCode();
        }
        return new RouteRequest(id, null, null, null, t, null, null, null, 256, 64, null, false);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + HEARD.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what).isLessThan(end);
            Thread.sleep(1);
        }
    }

    @Test
    void eachReplicaHearsTheOthersAdmissionsAndEventsByDatagram() throws Exception {
        int[] ports = UdpPorts.free(2); // distinct: each replica binds its own
        int pa = ports[0];
        int pb = ports[1];
        // One list for both, each in it: a replica skips its own datagrams.
        Replica a = replica("replica-a", pa, List.of(pa, pb), KEY);
        Replica b = replica("replica-b", pb, List.of(pa, pb), KEY);
        int w = a.selector().route(request("r1", 4096)).get().workerIndex();
        await(() -> b.selector().inflight().view(w).inFlight() == 1, "b hears a's admission");
        assertThat(b.selector().inflight().view(w).kvUsedTokens()).isEqualTo(4096);
        assertThat(b.selector().report(new RequestEvent("r1", RequestEvent.Type.FIRST_TOKEN, 1)))
                .isEqualTo(ReportedEvent.APPLIED);
        await(() -> a.selector().inflight().view(w).waiting() == 0, "a hears r1's first token from b");
        a.selector().report(new RequestEvent("r1", RequestEvent.Type.FINISHED, 40));
        await(() -> b.selector().inflight().size() == 0, "b hears r1's finish");
        await(() -> a.path().received(Outcome.OWN) == 2, "a skips its own two datagrams");
        assertThat(b.path().received(Outcome.HANDED_OVER)).isEqualTo(2);
        assertThat(b.path().datagramsSent()).as("b's first token, to both").isEqualTo(2);

        // A warm path's delay, admission by admission (polled every 0.1 ms).
        long[] micros = new long[20];
        for (int i = 0; i < micros.length; i++) {
            long t0 = System.nanoTime();
            b.selector().route(request("later" + i, 512)).get();
            int before = i;
            while (a.selector().inflight().size() != before + 1) {
                assertThat(System.nanoTime() - t0).as("a hears b's admission " + i).isLessThan(HEARD.toNanos());
                java.util.concurrent.locks.LockSupport.parkNanos(100_000);
            }
            micros[i] = (System.nanoTime() - t0) / 1000;
        }
        Arrays.sort(micros);
        System.out.printf("direct replica path: 20 admissions reached the other replica in %.2f ms (min) / %.2f ms "
                + "(median) / %.2f ms (max), route included%n", micros[0] / 1e3, micros[10] / 1e3, micros[19] / 1e3);
        assertThat(a.path().lastDelayMillis()).isBetween(0L, HEARD.toMillis());
        assertThat(a.path().badMessages() + a.path().refusedUnsigned() + a.path().refusedMalformed()).isZero();
    }

    @Test
    void datagramsSignedWithAnotherKeyAreRefusedUnread() throws Exception {
        int[] ports = UdpPorts.free(2); // distinct: each replica binds its own
        int pa = ports[0];
        int pb = ports[1];
        Replica a = replica("replica-a", pa, List.of(pb), KEY);
        Replica b = replica("replica-b", pb, List.of(pa), "another key, also long enough to be used");
        a.selector().route(request("r1", 1024)).get();
        await(() -> b.path().refusedUnsigned() == 1, "b refuses a's datagram");
        assertThat(b.selector().inflight().size()).isZero();
        assertThat(b.path().received(Outcome.HANDED_OVER)).isZero();
        // Bytes that are no datagram of ours at all.
        try (DatagramChannel c = DatagramChannel.open()) {
            c.send(java.nio.ByteBuffer.wrap("GET / HTTP/1.1\r\n\r\n".getBytes()), new InetSocketAddress("127.0.0.1", pb));
        }
        await(() -> b.path().refusedMalformed() == 1, "b refuses a stray datagram");
        assertThat(b.path().datagramsReceived()).isEqualTo(2);
    }

    @Test
    void aPeerThatDoesNotResolveIsCountedAndTheOthersStillHear() throws Exception {
        int[] ports = UdpPorts.free(2); // distinct: each replica binds its own
        int pa = ports[0];
        int pb = ports[1];
        Replica a = replicaTo("replica-a", pa, List.of(new HostPort("no-such-replica.invalid", 7411),
                new HostPort("127.0.0.1", pb)), KEY);
        Replica b = replica("replica-b", pb, List.of(pa), KEY);
        a.selector().route(request("r1", 1024)).get();
        await(() -> b.selector().inflight().size() == 1, "b hears a's admission");
        await(() -> a.path().sendFailed() == 1, "the name that does not resolve counted");
        await(() -> a.path().datagramsSent() == 1, "the one datagram to b counted once its send returned");
    }

    /**
     * Someone on the network keeps a signed datagram (here a socket listed as a peer) and sends it again after its
     * request finished: it is dropped as a copy, and the request is not admitted again.
     */
    @Test
    void aReplayedDatagramIsDroppedAsACopy() throws Exception {
        int[] ports = UdpPorts.free(2); // distinct: each replica binds its own
        int pa = ports[0];
        int pb = ports[1];
        try (DatagramChannel sniffer = DatagramChannel.open()) {
            sniffer.bind(new InetSocketAddress("127.0.0.1", 0));
            int ps = ((InetSocketAddress) sniffer.getLocalAddress()).getPort();
            Replica a = replica("replica-a", pa, List.of(pb, ps), KEY);
            Replica b = replica("replica-b", pb, List.of(pa), KEY);
            a.selector().route(request("r1", 1024)).get();
            java.nio.ByteBuffer captured = java.nio.ByteBuffer.allocate(DatagramFrame.MAX_DATAGRAM);
            sniffer.configureBlocking(false);
            await(() -> {
                try {
                    return sniffer.receive(captured) != null;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, "the sniffer keeps a's admission datagram");
            captured.flip();
            a.selector().report(new RequestEvent("r1", RequestEvent.Type.FINISHED, 10));
            await(() -> b.path().received(Outcome.HANDED_OVER) == 2 && b.selector().inflight().size() == 0,
                    "b hears r1's admission and finish");
            sniffer.send(captured, new InetSocketAddress("127.0.0.1", pb));
            await(() -> b.path().received(Outcome.DUPLICATE) == 1, "the replay dropped as a copy");
            assertThat(b.selector().inflight().size()).as("r1 not admitted again").isZero();
            assertThat(b.sync().admissionsApplied()).isEqualTo(1);
        }
    }

    @Test
    void aListenNameThatDoesNotResolveFailsTheStartNamingIt() {
        KafkaSettings.Direct d = new KafkaSettings.Direct(new HostPort("no-such-listen-host.invalid", 7411),
                List.of(new HostPort("127.0.0.1", 7411)), KafkaSettings.Direct.DEFAULT_KEY_ENV, Duration.ofSeconds(5),
                16);
        assertThatThrownBy(() -> DirectPath.open(d, KEY, new ReplicaSyncWire("r", "r", "default",
                selector().registry()))).isInstanceOf(UncheckedIOException.class)
                .hasMessage("cannot receive replica datagrams on no-such-listen-host.invalid:7411: the name does not "
                        + "resolve");
    }

    @Test
    void aPortInUseFailsTheStartNamingIt() throws Exception {
        try (DatagramChannel taken = DatagramChannel.open()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = ((InetSocketAddress) taken.getLocalAddress()).getPort();
            assertThatThrownBy(() -> replica("replica-a", port, List.of(port), KEY))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasMessageContaining("cannot receive replica datagrams on /127.0.0.1:" + port);
        }
    }

    @Test
    void aKeyTooShortFailsTheStart() throws Exception {
        int port = freePort();
        assertThatThrownBy(() -> replica("replica-a", port, List.of(port), "short"))
                .hasMessageContaining("at least 32 characters");
    }
}
