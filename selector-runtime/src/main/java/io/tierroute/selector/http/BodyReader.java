package io.tierroute.selector.http;

import io.undertow.io.Receiver;
import io.undertow.server.Connectors;
import io.undertow.server.HttpServerExchange;
import io.undertow.server.RequestTooBigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xnio.XnioExecutor;
import org.xnio.channels.StreamSourceChannel;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Reads request bodies, bounded by {@code server.maxBodyBytes}. A small body of known length on an
 * I/O thread is read straight from the channel into a per-thread buffer and handled at once (no
 * per-request body array, no byte-by-byte copy as in Undertow's {@code receiveFullBytes}); other
 * bodies (chunked, large, on a worker thread) go through Undertow's receiver in bulk chunks.
 */
final class BodyReader {

    private static final Logger log = LoggerFactory.getLogger(BodyReader.class);

    /** How much of a too-large body of unknown length is read and discarded before the 413 and the close. */
    static final int DRAIN_LIMIT = 1 << 20;

    /** Bodies up to this size are read straight from the channel into a per-I/O-thread buffer. */
    private static final int DIRECT_READ_LIMIT = 64 * 1024;
    private static final ThreadLocal<ByteBuffer> READ_BUFFER =
            ThreadLocal.withInitial(() -> ByteBuffer.allocate(DIRECT_READ_LIMIT + 1));

    /** Receives a complete body: {@code body[0, length)}; the array may be a reused buffer, so copy what you keep. */
    interface Sink {
        void handle(HttpServerExchange ex, byte[] body, int length);
    }

    /** Sends an error answer. */
    interface Errors {
        void error(HttpServerExchange ex, int status, String message);
    }

    private final int maxBodyBytes;
    private final int bodyTimeoutMs;
    private final Errors errors;

    BodyReader(int maxBodyBytes, int bodyTimeoutMs, Errors errors) {
        this.maxBodyBytes = maxBodyBytes;
        this.bodyTimeoutMs = bodyTimeoutMs;
        this.errors = errors;
    }

    /**
     * The deadline of one body still in flight: when it passes first, the request is answered 408 and its connection
     * closed after the answer, and whatever of the body comes later is ignored. Runs on the exchange's I/O thread, as
     * the channel's read listeners do, so the two never race.
     */
    private final class Deadline {
        private final XnioExecutor.Key key;
        private boolean over; // the body completed, failed or timed out: exactly one of them answers

        Deadline(HttpServerExchange ex, Runnable stopReading) {
            key = ex.getIoThread().executeAfter(() -> {
                if (over) {
                    return;
                }
                over = true;
                stopReading.run();
                ex.setPersistent(false);
                errors.error(ex, 408, "the request body did not arrive within " + bodyTimeoutMs
                        + " ms of its headers (server.bodyTimeoutMs)");
            }, bodyTimeoutMs, TimeUnit.MILLISECONDS);
        }

        /** The body completed or failed first: true if it may still answer (the deadline has not). */
        boolean settle() {
            if (over) {
                return false;
            }
            over = true;
            key.remove();
            return true;
        }
    }

    /**
     * Reads the body of {@code ex} (bounded by the limit: 413 beyond it) and hands it to {@code h},
     * at once when it is already there.
     */
    void read(HttpServerExchange ex, Sink h) {
        long length = ex.getRequestContentLength();
        if (length > (long) maxBodyBytes + DRAIN_LIMIT) {
            tooLarge(ex, "request body of " + length + " bytes");
            return;
        }
        // A body of known length over the limit by at most DRAIN_LIMIT is read and discarded before the 413, as a
        // chunked one is: answered while the client still sends, the closing connection lost the answer (the JDK
        // client saw "header parser received no bytes", 1 run in 8 of ApiHandlerTest).
        if (length >= 0 && length <= Math.min(DIRECT_READ_LIMIT, maxBodyBytes) && ex.isInIoThread()
                && readDirect(ex, (int) length, h)) {
            return;
        }
        Receiver receiver = ex.getRequestReceiver();
        receiver.setMaxBufferSize((int) Math.max(maxBodyBytes, length)); // past maxBodyBytes the collector discards
        BodyCollector body = new BodyCollector(length, maxBodyBytes);
        Deadline deadline = new Deadline(ex, receiver::pause);
        // Partial reads copy each network buffer in bulk (receiveFullBytes copies byte by byte);
        // a body that arrived whole is handed over without a further copy.
        receiver.receivePartialBytes((e, chunk, last) -> {
            if (body.answered || deadline.over) {
                return;
            }
            if (body.failed || !body.append(chunk)) {
                // Too large. Read on and discard (up to DRAIN_LIMIT) before answering: a client still sending
                // when the connection closes sees a broken pipe instead of the 413 (Java's HttpClient does).
                body.failed = true;
                body.discarded += chunk.length;
                if (last || body.discarded > DRAIN_LIMIT) {
                    body.answered = true;
                    if (deadline.settle()) {
                        tooLarge(e, length >= 0 ? "request body of " + length + " bytes" : "request body");
                    }
                }
                return;
            }
            if (last && deadline.settle()) {
                byte[] bytes = body.bytes();
                h.handle(e, bytes, bytes.length);
            }
        }, (e, failure) -> {
            if (!deadline.settle()) {
                return;
            }
            if (failure instanceof RequestTooBigException || failure instanceof Receiver.RequestToLargeException) {
                tooLarge(e, "request body");
            } else {
                log.debug("could not read a request body: {}", failure.toString());
                e.setPersistent(false);
                e.endExchange();
            }
        });
    }

    /** Answers 413 and closes the connection after the answer (a body of unknown length is drained first: read). */
    private void tooLarge(HttpServerExchange ex, String what) {
        ex.setPersistent(false);
        errors.error(ex, 413, what + " is larger than the limit of " + maxBodyBytes + " bytes (server.maxBodyBytes)");
    }

    /**
     * The fast path for a small body of known length on an I/O thread: read it from the channel into
     * the thread's buffer (no per-request body array) and handle it at once; when part of it is still
     * in flight, copy what came and finish on the channel's read listener. False when the channel is
     * not available (the receiver path takes over).
     */
    private boolean readDirect(HttpServerExchange ex, int length, Sink h) {
        StreamSourceChannel channel = ex.getRequestChannel();
        if (channel == null) {
            return false;
        }
        // One byte past the body: the read that finds the body's end (-1) completes the request, so Undertow
        // knows the connection carries nothing more of it (HangUpWatch reads the connection while a route waits).
        ByteBuffer buf = READ_BUFFER.get();
        buf.clear().limit(length + 1);
        int r;
        try {
            while ((r = channel.read(buf)) > 0) {
                // keep reading what is already there
            }
        } catch (IOException e) {
            log.debug("could not read a request body: {}", e.toString());
            ex.setPersistent(false);
            ex.endExchange();
            return true;
        }
        if (r < 0) {
            if (buf.position() == length) {
                h.handle(ex, buf.array(), length);
            } else {
                ex.setPersistent(false);
                errors.error(ex, 400, "the request body ended after " + buf.position() + " of " + length + " bytes");
            }
            return true;
        }
        byte[] body = Arrays.copyOf(buf.array(), length + 1);
        ByteBuffer rest = ByteBuffer.wrap(body);
        rest.position(buf.position());
        Deadline deadline = new Deadline(ex, () -> {
            channel.suspendReads();
            channel.getReadSetter().set(null);
        });
        channel.getReadSetter().set(c -> {
            int n;
            try {
                while ((n = c.read(rest)) > 0) {
                    // drain what arrived
                }
            } catch (IOException e) {
                log.debug("could not read a request body: {}", e.toString());
                c.suspendReads();
                c.getReadSetter().set(null);
                if (deadline.settle()) {
                    ex.setPersistent(false);
                    ex.endExchange();
                }
                return;
            }
            if (n == 0) {
                return; // more to come
            }
            c.suspendReads();
            c.getReadSetter().set(null);
            if (!deadline.settle()) {
                return;
            }
            if (rest.position() != length) {
                ex.setPersistent(false);
                Connectors.executeRootHandler(e -> errors.error(e, 400, "the request body ended after " + rest.position()
                        + " of " + length + " bytes"), ex);
            } else {
                Connectors.executeRootHandler(e -> h.handle(e, body, length), ex);
            }
        });
        channel.resumeReads();
        return true;
    }

    /** Assembles a body from the receiver's chunks, bounded by the size limit. */
    private static final class BodyCollector {
        private final int limit;
        private byte[] buf;
        private int size;
        boolean failed;
        boolean answered;
        long discarded;

        BodyCollector(long contentLength, int limit) {
            this.limit = limit;
            this.buf = contentLength > 0 ? null : new byte[0];
        }

        boolean append(byte[] chunk) {
            if (size == 0 && (buf == null || buf.length == 0)) {
                buf = chunk; // the common case: one chunk is the whole body, no copy
                size = chunk.length;
                return size <= limit;
            }
            if ((long) size + chunk.length > limit) {
                return false;
            }
            if (size + chunk.length > buf.length) {
                buf = java.util.Arrays.copyOf(buf, Math.min(limit, Math.max(size + chunk.length, buf.length * 2)));
            }
            System.arraycopy(chunk, 0, buf, size, chunk.length);
            size += chunk.length;
            return true;
        }

        byte[] bytes() {
            if (buf == null) {
                return new byte[0];
            }
            return size == buf.length ? buf : java.util.Arrays.copyOf(buf, size);
        }
    }
}
