package io.tierroute.selector.http;

import io.undertow.connector.PooledByteBuffer;
import io.undertow.server.HttpServerExchange;
import io.undertow.server.protocol.http.HttpServerConnection;
import org.xnio.ChannelListener;
import org.xnio.IoUtils;
import org.xnio.conduits.ConduitStreamSourceChannel;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Notices a client that hangs up while its route waits in the admission queue. Undertow reads
 * nothing from a connection while an exchange is in progress, so a closed socket goes unseen until
 * the answer is written; a route whose client left would still be admitted and counted on a worker
 * that never receives it (until {@code routing.requestMaxAge}). The watch reads the connection while
 * the route waits: end of stream (a close, or a half-close: a client that shuts its sending side
 * down is taken to have given up, as proxies do) is the hang-up; bytes are the client's next,
 * pipelined, request, handed back to Undertow untouched and the watch ends.
 *
 * <p>HTTP/1.x only, only once the request body has been read (the raw connection then carries nothing
 * of this request), and not when Undertow already holds bytes of a next request (they must be parsed
 * before anything read later). Every method runs on the connection's I/O thread: the read listener
 * does, and {@link #stop} must (the route answers from that thread).
 */
final class HangUpWatch {

    /** No watch: another protocol, a body not read to its end, or a pipelined request already buffered. */
    private static final HangUpWatch NONE = new HangUpWatch(null, null, null);

    private final HttpServerConnection connection;
    private final ConduitStreamSourceChannel source;
    private final Runnable onHangUp;
    private final ChannelListener<ConduitStreamSourceChannel> listener = ch -> readable();
    private boolean watching;
    private boolean hungUp;

    private HangUpWatch(HttpServerConnection connection, ConduitStreamSourceChannel source, Runnable onHangUp) {
        this.connection = connection;
        this.source = source;
        this.onHangUp = onHangUp;
    }

    /**
     * Starts watching {@code ex}'s connection (on its I/O thread: at once when called there, else as the
     * thread's next task); {@code onHangUp} runs once if the client closes it before {@link #stop}.
     */
    static HangUpWatch start(HttpServerExchange ex, Runnable onHangUp) {
        if (!(ex.getConnection() instanceof HttpServerConnection c) || !ex.isRequestComplete()
                || c.getExtraBytes() != null) {
            return NONE;
        }
        HangUpWatch watch = new HangUpWatch(c, c.getChannel().getSourceChannel(), onHangUp);
        if (ex.isInIoThread()) {
            watch.begin();
        } else {
            ex.getIoThread().execute(watch::begin);
        }
        return watch;
    }

    private void begin() {
        // The request's conduit (fixed length, continue) is exhausted: read the connection itself. Undertow puts
        // its own conduit back when the exchange ends (AbstractServerConnection.clearChannel).
        source.setConduit(connection.getOriginalSourceConduit());
        source.getReadSetter().set(listener);
        watching = true;
        source.resumeReads();
    }

    /**
     * Ends the watch before the answer is written; the next request is Undertow's to read. On the I/O thread,
     * where a watch {@link #start} handed over as a task has begun by then (the thread runs its tasks in order).
     */
    void stop() {
        if (watching) {
            watching = false;
            if (source.getReadListener() == listener) { // never undo a listener Undertow set meanwhile
                source.suspendReads();
                source.getReadSetter().set(null);
            }
        }
    }

    /**
     * Whether the client hung up before {@link #stop}: then the route is abandoned even when a decision completed
     * it at the same moment (its cancel came too late to withdraw it; the caller gives the slot back).
     */
    boolean hungUp() {
        return hungUp;
    }

    private void readable() {
        if (!watching) {
            return;
        }
        PooledByteBuffer pooled = connection.getByteBufferPool().allocate();
        boolean handedBack = false;
        try {
            ByteBuffer buffer = pooled.getBuffer();
            int n = source.read(buffer);
            if (n == 0) {
                return; // a spurious wake-up
            }
            stop();
            if (n > 0) {
                // A pipelined request: Undertow parses it from these bytes once this exchange ends.
                buffer.flip();
                connection.ungetRequestBytes(pooled);
                handedBack = true;
                return;
            }
            hungUp = true;
            onHangUp.run();
            IoUtils.safeClose(connection);
        } catch (IOException e) {
            // A reset connection is a hang-up as much as a closed one.
            stop();
            hungUp = true;
            onHangUp.run();
            IoUtils.safeClose(connection);
        } finally {
            if (!handedBack) {
                pooled.close();
            }
        }
    }
}
