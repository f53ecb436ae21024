package io.tierroute.selector.sync.direct;

import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.config.KafkaSettings.HostPort;
import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.scheduling.RouteRequest;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.scheduling.SelectorSettings;
import io.tierroute.selector.scheduling.WorkerSpec;
import io.tierroute.selector.sequences.RequestEvent;
import io.tierroute.selector.sync.NumberedMessage;
import io.tierroute.selector.sync.NumberingTransport;
import io.tierroute.selector.sync.ReplicaSync;
import io.tierroute.selector.sync.wire.ReplicaSyncWire;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the direct path's threads end: a close from an interrupted thread still waits for them (nothing is applied after
 * it returns), what the sender still held is counted, and an Error stops a thread for good and says so.
 */
class DirectPathStopTest {

    private static final String KEY = "k".repeat(40);
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        Thread.interrupted();
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private record Replica(Selector selector, ReplicaSync sync, DirectPath path) {}

    private static Selector selector() {
        List<WorkerSpec> specs = List.of(WorkerSpec.of("w0", 1_000_000), WorkerSpec.of("w1", 1_000_000));
        SelectorSettings settings = SelectorSettings.builder(specs).blockSize(16).seed(7L).ownKvAccounting(true).build();
        NaiveReferenceIndex index = new NaiveReferenceIndex(2);
        return new Selector(settings, index, new DirectIndexWriter(index),
                new ParameterStore(ParameterSet.defaults(2)), System::nanoTime);
    }

    private static int freePort() throws IOException {
        try (DatagramChannel c = DatagramChannel.open()) {
            c.bind(new InetSocketAddress("127.0.0.1", 0));
            return ((InetSocketAddress) c.getLocalAddress()).getPort();
        }
    }

    private static KafkaSettings.Direct settings(int port, int peer) {
        return new KafkaSettings.Direct(new HostPort("127.0.0.1", port), List.of(new HostPort("127.0.0.1", peer)),
                KafkaSettings.Direct.DEFAULT_KEY_ENV, Duration.ofSeconds(5), 1024);
    }

    /** A replica sending to {@code peer}, its sync on {@code syncClock}. */
    private Replica replica(String id, int port, int peer, LongSupplier syncClock) {
        Selector s = selector();
        DirectPath path = DirectPath.open(settings(port, peer), KEY, new ReplicaSyncWire(id, id, "default", s.registry()));
        open.add(path);
        ReplicaSync sync = new ReplicaSync(s, new NumberingTransport(List.of(path)), syncClock, Duration.ofSeconds(30),
                1000);
        path.start(sync);
        sync.install();
        return new Replica(s, sync, path);
    }

    private static RouteRequest request(String id) {
        int[] t = new int[256];
        for (int i = 0; i < t.length; i++) {
            t[i] = i * 31 + id.hashCode();
        }
        return new RouteRequest(id, null, null, null, t, null, null, null, 256, 64, null, false);
    }

    private static NumberedMessage event(long sequence, String requestId) {
        return new NumberedMessage(sequence, null, new RequestEvent(requestId, RequestEvent.Type.FIRST_TOKEN, 1),
                System.currentTimeMillis());
    }

    private static Object field(Object o, String name) throws ReflectiveOperationException {
        Field f = o.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
    }

    private static Thread thread(DirectPath path, String half) throws ReflectiveOperationException {
        return (Thread) field(field(path, half), "thread");
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what).isLessThan(end);
            Thread.sleep(1);
        }
    }

    /**
     * b's receiver is busy applying a's admission (held up on the sync's lock) when b's path is closed from an
     * interrupted thread: the close waits for it, so nothing is applied after it returns.
     */
    @Test
    void closeFromAnInterruptedThreadWaitsForABusyReceiver() throws Exception {
        int[] ports = UdpPorts.free(2); // distinct: each replica binds its own
        int pa = ports[0];
        int pb = ports[1];
        Replica a = replica("a", pa, pb, System::nanoTime);
        Replica b = replica("b", pb, pa, System::nanoTime);
        Thread receiver = thread(b.path(), "receiver");
        Object lock = field(b.sync(), "lock");
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch closing = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            synchronized (lock) {
                held.countDown();
                try {
                    closing.await();
                    Thread.sleep(300); // the close is under way, from an interrupted thread
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, "test-lock-holder");
        holder.start();
        held.await();
        a.selector().route(request("r1")).get();
        await(() -> receiver.getState() == Thread.State.BLOCKED, "b's receiver busy applying a's admission");

        closing.countDown();
        Thread.currentThread().interrupt();
        long t0 = System.nanoTime();
        try {
            b.path().close();
            assertThat(Thread.currentThread().isInterrupted()).as("the caller's interrupt is kept").isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(receiver.isAlive()).as("the receiver's thread ended before close() returned").isFalse();
        assertThat(b.selector().inflight().size()).as("a's admission applied before close() returned").isEqualTo(1);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("a wait for the thread, not the 5 s timeout")
                .isLessThan(Duration.ofSeconds(4));
        holder.join();
    }

    /** Idle paths closed from an interrupted thread: no thread of theirs is left running, whichever half. */
    @Test
    void closeFromAnInterruptedThreadLeavesNoThread() throws Exception {
        int peer = freePort();
        for (int i = 0; i < 20; i++) {
            Replica r = replica("r" + i, freePort(), peer, System::nanoTime);
            Thread in = thread(r.path(), "receiver");
            Thread out = thread(r.path(), "sender");
            Thread.sleep(20);
            Thread.currentThread().interrupt();
            try {
                r.path().close();
                assertThat(Thread.currentThread().isInterrupted()).as("the caller's interrupt is kept").isTrue();
            } finally {
                Thread.interrupted();
            }
            assertThat(in.isAlive()).as("close " + i + ": the receiver's thread ended").isFalse();
            assertThat(out.isAlive()).as("close " + i + ": the sender's thread ended").isFalse();
        }
    }

    /** Messages still in the buffer at close, and those offered after, are counted as closed: not lost uncounted. */
    @Test
    void whatTheSenderHeldAtCloseAndWasOfferedAfterIsCountedClosed() throws Exception {
        int port = freePort();
        DirectPath path = DirectPath.open(settings(port, port), KEY,
                new ReplicaSyncWire("a", "a", "default", selector().registry())); // never started: nothing is sent
        open.add(path);
        for (int i = 1; i <= 3; i++) {
            path.send(event(i, "r" + i));
        }
        assertThat(path.backlog()).isEqualTo(3);
        path.close();
        assertThat(path.droppedClosed()).isEqualTo(3);
        path.send(event(4, "r4"));
        assertThat(path.droppedClosed()).isEqualTo(4);
        assertThat(path.droppedBufferFull()).isZero();
        assertThat(path.backlog()).isZero();
    }

    /** An Error while applying a datagram ends the receiving thread for good, and the path says why. */
    @Test
    void anErrorStopsTheReceiverForGoodAndThePathSaysSo() throws Exception {
        int[] ports = UdpPorts.free(2); // distinct: each replica binds its own
        int pa = ports[0];
        int pb = ports[1];
        AtomicBoolean boom = new AtomicBoolean();
        Replica a = replica("a", pa, pb, System::nanoTime);
        Replica b = replica("b", pb, pa, () -> {
            if (boom.get()) {
                throw new OutOfMemoryError("Java heap space (injected)");
            }
            return System.nanoTime();
        });
        Thread receiver = thread(b.path(), "receiver");
        assertThat(b.path().receiverStopped()).isNull();
        boom.set(true);
        a.selector().route(request("r1")).get();
        receiver.join(WAIT.toMillis());
        assertThat(receiver.isAlive()).isFalse();
        assertThat(b.path().receiverStopped()).contains("OutOfMemoryError: Java heap space (injected)")
                .contains("receiving replica datagrams on /127.0.0.1:" + pb);
        assertThat(b.path().senderStopped()).isNull();
        assertThat(a.path().receiverStopped()).isNull();
    }

    /**
     * An Error on the sending thread stops it for good: the message it was sending, what it held and every later offer
     * are counted as closed, not left to fill the buffer and pass for buffer_full.
     */
    @Test
    void anErrorStopsTheSenderForGoodAndLaterMessagesCountAsClosed() throws Exception {
        CountDownLatch encoding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (DatagramChannel peer = DatagramChannel.open()) {
            peer.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = ((InetSocketAddress) peer.getLocalAddress()).getPort();
            DirectSender sender = new DirectSender(n -> {
                if (n.requestId().equals("boom")) {
                    encoding.countDown();
                    try {
                        release.await(); // the test queues more meanwhile
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    throw new NoClassDefFoundError("io/tierroute/Missing");
                }
                return new byte[] {1, 2, 3};
            }, KEY, List.of(new HostPort("127.0.0.1", port)), 16).start();
            open.add(sender);
            Thread thread = (Thread) field(sender, "thread");
            sender.send(event(1, "ok"));
            await(() -> sender.datagrams() == 1, "the first message sent");
            sender.send(event(2, "boom"));
            assertThat(encoding.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            for (int i = 0; i < 5; i++) {
                sender.send(event(3 + i, "queued"));
            }
            release.countDown();
            thread.join(WAIT.toMillis()); // once it has counted what it held
            assertThat(thread.isAlive()).as("the sending thread ended").isFalse();
            assertThat(sender.stopped()).contains("NoClassDefFoundError").contains("sending replica datagrams");
            assertThat(sender.droppedClosed()).as("boom and the five it held").isEqualTo(6);
            for (int i = 0; i < 20; i++) { // more than the buffer holds
                sender.send(event(8 + i, "later"));
            }
            assertThat(sender.droppedClosed()).isEqualTo(26);
            assertThat(sender.droppedFull()).isZero();
            assertThat(sender.backlog()).isZero();
            assertThat(sender.encodeFailed()).isZero();
        }
    }
}
