package io.tierroute.selector.sync.direct;

import io.tierroute.selector.logging.LogLimiter;
import io.tierroute.selector.sync.wire.ReplicaSyncInbound;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The direct path's receiving half: the {@code tierroute-replica-direct-in} thread receives each datagram, checks its
 * frame and signature ({@link DatagramFrame}; a datagram without the replica key is dropped and counted, never
 * decoded) and hands the message to its {@link ReplicaSyncInbound}, which drops this replica's own, a copy Kafka
 * brought first, and one older than the maximum age, and applies the rest.
 */
final class DirectReceiver implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DirectReceiver.class);

    private final DatagramFrame frame;
    private volatile ReplicaSyncInbound inbound; // set by start
    private final DatagramChannel channel;
    private final Thread thread;
    private final LongAdder datagrams = new LongAdder();
    private final LongAdder[] refused = new LongAdder[DatagramFrame.Refusal.values().length];
    private final LogLimiter refusedLog = new LogLimiter(20, 1000);

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
    InetSocketAddress address() throws IOException {
        return (InetSocketAddress) channel.getLocalAddress();
    }

    private void run() {
        ByteBuffer in = ByteBuffer.allocate(DatagramFrame.MAX_DATAGRAM + 1);
        while (channel.isOpen()) {
            SocketAddress from;
            try {
                in.clear();
                from = channel.receive(in);
            } catch (ClosedChannelException e) {
                return; // close()
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
            Thread.currentThread().interrupt();
        }
    }

    /** Datagrams received, refused ones included. */
    long datagrams() { return datagrams.sum(); }
    /** Datagrams refused before decoding, for {@code reason}. */
    long refused(DatagramFrame.Refusal reason) { return refused[reason.ordinal()].sum(); }
    /** Where received messages go; null before {@link #start}. */
    ReplicaSyncInbound inbound() { return inbound; }

    @Override
    public void close() {
        try {
            channel.close(); // ends a blocked receive
        } catch (IOException e) {
            log.debug("direct replica receiver: closing its socket: {}", e.toString());
        }
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
