package io.tierroute.selector.sync.direct;

import io.tierroute.selector.logging.LogLimiter;
import io.tierroute.selector.sync.wire.ReplicaSyncInbound;
import io.tierroute.selector.threads.PartStop;
import io.tierroute.selector.threads.Uninterrupted;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.atomic.LongAdder;

/**
 * The direct path's receiving half: the {@code tierroute-replica-direct-in} thread receives each datagram, checks its
 * frame and signature ({@link DatagramFrame}; a datagram without the replica key is dropped and counted, never
 * decoded) and hands the message to its {@link ReplicaSyncInbound}, which drops this replica's own, a copy Kafka
 * brought first, and one older than the maximum age, and applies the rest. An {@link Error} on that thread stops it for
 * good ({@link #stopped()}, logged; {@code /healthz} answers 503), as it does a Kafka part's.
 */
final class DirectReceiver implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DirectReceiver.class);

    private final DatagramFrame frame;
    private volatile ReplicaSyncInbound inbound; // set by start
    private final DatagramChannel channel;
    private final InetSocketAddress bound;
    private final Thread thread;
    private final LongAdder datagrams = new LongAdder();
    private final LongAdder[] refused = new LongAdder[DatagramFrame.Refusal.values().length];
    private final LogLimiter refusedLog = new LogLimiter(20, 1000);
    private final PartStop stop = new PartStop("replica direct receiver");
    private volatile boolean closing;

    /** Binds {@code listen} now, so that a port in use fails the start with a clear message. */
    DirectReceiver(InetSocketAddress listen, String key) throws IOException {
        this.frame = new DatagramFrame(key);
        for (int i = 0; i < refused.length; i++) {
            refused[i] = new LongAdder();
        }
        if (listen.isUnresolved()) {
            throw new IOException("cannot receive replica datagrams on " + listen.getHostString() + ":" + listen.getPort()
                    + ": the name does not resolve");
        }
        DatagramChannel c = DatagramChannel.open();
        try {
            c.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 4 << 20);
            c.bind(listen);
            this.bound = (InetSocketAddress) c.getLocalAddress(); // the port taken, when 0 was asked for
        } catch (IOException | RuntimeException e) {
            c.close();
            throw new IOException("cannot receive replica datagrams on " + listen + ": " + e.getMessage(), e);
        }
        this.channel = c;
        this.thread = new Thread(this::run, "tierroute-replica-direct-in");
        thread.setDaemon(true);
    }

    /** Starts receiving into {@code to}. */
    DirectReceiver start(ReplicaSyncInbound to) {
        this.inbound = to;
        to.liveFrom(System.currentTimeMillis());
        thread.start();
        return this;
    }

    /** Where it receives (the port bound, when 0 was asked for). */
    InetSocketAddress address() {
        return bound;
    }

    private void run() {
        try {
            receiveLoop();
        } catch (Throwable t) { // an Error, or the socket closed under it: nothing would receive any more
            stop.record(t, "receiving replica datagrams on " + bound);
        }
    }

    private void receiveLoop() throws ClosedChannelException {
        ByteBuffer in = ByteBuffer.allocate(DatagramFrame.MAX_DATAGRAM + 1);
        while (!closing) {
            SocketAddress from;
            try {
                in.clear();
                from = channel.receive(in);
            } catch (ClosedChannelException e) {
                if (closing) {
                    return; // close()
                }
                throw e; // not close(): recorded as a stop, not a silent end
            } catch (IOException e) {
                if (refusedLog.allow()) {
                    log.warn("direct replica receiver: {}; receiving on", e.toString());
                }
                pauseAfterError(); // an error that repeats must not spin this thread
                continue;
            }
            datagrams.increment();
            in.flip();
            DatagramFrame.Message m;
            try {
                if (in.remaining() > DatagramFrame.MAX_DATAGRAM) { // cut short to the buffer: no sender of ours sends it
                    throw new DatagramFrame.RefusedException(DatagramFrame.Refusal.MALFORMED, "larger than "
                            + DatagramFrame.MAX_DATAGRAM + " bytes, the largest datagram a replica sends");
                }
                m = frame.read(in);
            } catch (DatagramFrame.RefusedException e) {
                refused[e.reason.ordinal()].increment();
                if (refusedLog.allow()) {
                    log.warn("direct replica receiver: dropped a datagram of {} bytes from {} ({}): {}", in.remaining(),
                            from, e.reason.name().toLowerCase(), e.getMessage());
                }
                continue;
            }
            try {
                inbound.handle(m.payload(), m.sequence(), () -> "datagram " + m.sequence() + " from " + from);
            } catch (RuntimeException e) { // the inbound counts what it refuses; this is a bug behind it
                log.error("direct replica receiver: a datagram from {} could not be handled: {}", from, e.toString(), e);
            }
        }
    }

    private static void pauseAfterError() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            // not kept: the next receive would close the socket (close() closes it, never interrupts)
        }
    }

    /** Datagrams received, refused ones included. */
    long datagrams() { return datagrams.sum(); }
    /** Datagrams refused before decoding, for {@code reason}. */
    long refused(DatagramFrame.Refusal reason) { return refused[reason.ordinal()].sum(); }
    /** Where received messages go; null before {@link #start}. */
    ReplicaSyncInbound inbound() { return inbound; }
    /** Why an Error stopped the receiving thread for good, or null while it runs. */
    String stopped() { return stop.why(); }

    /**
     * Closes the socket (ends a blocked receive) and waits up to 5 s for the thread, even when the caller is interrupted
     * (its interrupt kept): once this returns, nothing more is applied to the selector.
     */
    @Override
    public void close() {
        closing = true;
        try {
            channel.close();
        } catch (IOException e) {
            log.debug("direct replica receiver: closing its socket: {}", e.toString());
        }
        Uninterrupted.join(thread, 5_000);
        if (thread.isAlive()) {
            log.warn("direct replica receiver: its thread is still running 5 s after close (still applying a message?)");
        }
    }
}
