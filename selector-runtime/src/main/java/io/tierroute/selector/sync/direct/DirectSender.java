package io.tierroute.selector.sync.direct;

import io.tierroute.selector.config.KafkaSettings.HostPort;
import io.tierroute.selector.logging.LogLimiter;
import io.tierroute.selector.sync.NumberedMessage;
import io.tierroute.selector.sync.NumberedTransport;
import io.tierroute.selector.threads.PartStop;
import io.tierroute.selector.threads.Uninterrupted;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * The direct path's sending half: a route or request thread only offers a numbered message to a bounded buffer (full:
 * dropped and counted; Kafka still carries it); the {@code tierroute-replica-direct-out} thread encodes it once, signs
 * it ({@link DatagramFrame}) and sends one datagram to each address of each peer (a name may stand for every replica,
 * as a headless Service's does; resolved again every ten seconds). A failed send is counted and logged (rate-limited),
 * never retried: Kafka's copy follows. A name lookup runs on this thread: while DNS hangs, messages wait in the buffer
 * (past it they go by Kafka only). What is left in the buffer at {@link #close}, or offered after it, is counted as
 * {@link #droppedClosed}. An {@link Error} on the thread stops it for good ({@link #stopped()}, logged; {@code /healthz}
 * answers 503) and counts as closed what it held and every later offer, not as {@code buffer_full} once the buffer
 * has filled.
 */
final class DirectSender implements NumberedTransport, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DirectSender.class);
    /** How often a peer's name is resolved again. */
    static final long RESOLVE_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Function<NumberedMessage, byte[]> encoder;
    private final DatagramFrame frame;
    private final List<HostPort> peers;
    private final InetSocketAddress[][] addresses;
    private final long[] resolvedAtNanos;
    private final BlockingQueue<NumberedMessage> queue;
    private final DatagramChannel channel;
    private final Thread thread;
    private volatile boolean running = true;
    private final LongAdder offered = new LongAdder();
    private final LongAdder droppedFull = new LongAdder();
    private final LongAdder droppedClosed = new LongAdder();
    private final LongAdder tooLarge = new LongAdder();
    private final LongAdder datagrams = new LongAdder();
    private final LongAdder sendFailed = new LongAdder();
    private final LongAdder encodeFailed = new LongAdder();
    private final LogLimiter failLog = new LogLimiter(5, 1000);
    private final PartStop stop = new PartStop("replica direct sender");

    /** @param encoder a message's bytes ({@code ReplicaSyncWire::encode}), on the sending thread */
    DirectSender(Function<NumberedMessage, byte[]> encoder, String key, List<HostPort> peers, int bufferSize)
            throws IOException {
        this.encoder = encoder;
        this.frame = new DatagramFrame(key);
        this.peers = List.copyOf(peers);
        this.addresses = new InetSocketAddress[peers.size()][];
        this.resolvedAtNanos = new long[peers.size()];
        this.queue = new ArrayBlockingQueue<>(bufferSize);
        this.channel = DatagramChannel.open();
        this.thread = new Thread(this::run, "tierroute-replica-direct-out");
        thread.setDaemon(true);
    }

    DirectSender start() {
        thread.start();
        return this;
    }

    @Override
    public void send(NumberedMessage n) {
        offered.increment();
        if (!running) {
            droppedClosed.increment();
        } else if (!queue.offer(n)) {
            droppedFull.increment();
        } else if (!running && queue.remove(n)) {
            droppedClosed.increment(); // closed or stopped between the check and the offer: it would never be sent
        }
    }

    private void run() {
        try {
            sendLoop();
        } catch (Throwable t) { // an Error: the thread's state is in doubt and it would most likely come back
            running = false; // offers from now on are counted as closed
            stop.record(t, "sending replica datagrams");
            droppedClosed.add(drainAll());
        }
    }

    private void sendLoop() {
        ByteBuffer out = ByteBuffer.allocate(DatagramFrame.MAX_DATAGRAM);
        while (running) {
            NumberedMessage n;
            try {
                n = queue.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                continue; // close() never interrupts; running decides
            }
            if (n == null) {
                continue;
            }
            try {
                sendToPeers(n, out);
            } catch (RuntimeException e) { // never let the thread die while routes keep offering
                encodeFailed.increment();
                if (failLog.allow()) {
                    log.error("direct replica sender: cannot send the message of request '{}': {}",
                            n.requestId(), e.toString(), e);
                }
            } catch (Error e) {
                droppedClosed.increment(); // not sent (or not to every peer): the thread stops (run())
                throw e;
            }
        }
    }

    private int drainAll() {
        int n = 0;
        while (queue.poll() != null) {
            n++;
        }
        return n;
    }

    private void sendToPeers(NumberedMessage n, ByteBuffer out) {
        byte[] payload = encoder.apply(n);
        if (payload.length > DatagramFrame.MAX_PAYLOAD) {
            tooLarge.increment(); // Kafka carries it
            return;
        }
        frame.write(n.sequence(), payload, out);
        for (int i = 0; i < peers.size(); i++) {
            InetSocketAddress[] to = addresses(i);
            if (to.length == 0) {
                sendFailed.increment();
                continue;
            }
            for (InetSocketAddress a : to) {
                try {
                    channel.send(out.duplicate(), a);
                    datagrams.increment();
                } catch (IOException e) {
                    sendFailed.increment();
                    if (failLog.allow()) {
                        log.warn("direct replica sender: cannot send to {} ({}): {} (Kafka still carries the message)",
                                peers.get(i), a, e.toString());
                    }
                }
            }
        }
    }

    /**
     * The peer's addresses: every address its name resolves to (a Kubernetes headless Service names every replica's
     * pod at once), resolved again every {@link #RESOLVE_EVERY_NANOS} so that replicas coming and going are found. A
     * name that stops resolving keeps its last addresses; one that never resolved has none (counted as failed sends).
     */
    private InetSocketAddress[] addresses(int i) {
        long now = System.nanoTime();
        if (addresses[i] != null && now - resolvedAtNanos[i] < RESOLVE_EVERY_NANOS) {
            return addresses[i];
        }
        resolvedAtNanos[i] = now;
        HostPort p = peers.get(i);
        try {
            InetAddress[] all = InetAddress.getAllByName(p.host());
            InetSocketAddress[] found = new InetSocketAddress[all.length];
            for (int k = 0; k < all.length; k++) {
                found[k] = new InetSocketAddress(all[k], p.port());
            }
            addresses[i] = found;
        } catch (UnknownHostException e) {
            if (addresses[i] == null) {
                addresses[i] = new InetSocketAddress[0];
            }
            if (failLog.allow()) {
                log.warn("direct replica sender: peer {} does not resolve ({}); {} (Kafka still carries the messages)",
                        p, e.getMessage(), addresses[i].length == 0 ? "trying again in "
                                + TimeUnit.NANOSECONDS.toSeconds(RESOLVE_EVERY_NANOS) + " s"
                                : "sending to its last " + addresses[i].length + " address(es) meanwhile");
            }
        }
        return addresses[i];
    }

    /** Messages offered by routes and request threads. */
    long offered() { return offered.sum(); }
    /** Dropped because the buffer was full (Kafka still carried them). */
    long droppedFull() { return droppedFull.sum(); }
    /** Dropped because the sender was closing, closed or stopped: left in the buffer, or offered after. */
    long droppedClosed() { return droppedClosed.sum(); }
    /** Too large for one datagram (Kafka carried them). */
    long tooLarge() { return tooLarge.sum(); }
    /** Datagrams sent (one per address of each peer per message). */
    long datagrams() { return datagrams.sum(); }
    /** Sends that failed, or a peer that did not resolve. */
    long sendFailed() { return sendFailed.sum(); }
    /** Messages that could not be built (a bug; logged). */
    long encodeFailed() { return encodeFailed.sum(); }
    /** Messages waiting in the buffer. */
    int backlog() { return queue.size(); }
    /** Why an Error stopped the sending thread for good, or null while it runs. */
    String stopped() { return stop.why(); }

    /**
     * Stops the thread through its flag (within its 100 ms poll), never an interrupt: one during a send closes the
     * socket, and every address after counts as send_failed. Waits up to 5 s for it even when the caller is interrupted
     * (its interrupt kept), then closes the socket and counts what is left in the buffer as closed. Idempotent.
     */
    @Override
    public void close() {
        running = false;
        Uninterrupted.join(thread, 5_000);
        if (thread.isAlive()) {
            log.warn("direct replica sender: its thread is still running 5 s after close (a peer name lookup hanging?)");
        }
        try {
            channel.close();
        } catch (IOException e) {
            log.debug("direct replica sender: closing its socket: {}", e.toString());
        }
        droppedClosed.add(drainAll()); // each element is taken once: none counted twice or sent as well
    }
}
