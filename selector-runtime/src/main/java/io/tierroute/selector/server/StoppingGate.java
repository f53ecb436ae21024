package io.tierroute.selector.server;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.server.handlers.GracefulShutdownHandler;
import io.undertow.util.Headers;

import java.nio.charset.StandardCharsets;

/**
 * The root handler of a stopping-aware listener: counts the requests being answered (Undertow's
 * {@link GracefulShutdownHandler}, so a stop can wait for them) and, once {@link #close} has begun, answers a new
 * request at once with the API's JSON 503 and {@code Retry-After} instead of the bare 503 Undertow's handler sends.
 */
final class StoppingGate implements HttpHandler {
    static final String STOPPING = "the selector is stopping; retry on another replica";
    private static final byte[] BODY = ("{\"error\":\"" + STOPPING + "\"}").getBytes(StandardCharsets.UTF_8);

    private final GracefulShutdownHandler counted;
    private volatile boolean stopping;

    StoppingGate(HttpHandler next) {
        this.counted = new GracefulShutdownHandler(next);
    }

    @Override
    public void handleRequest(HttpServerExchange ex) throws Exception {
        if (stopping) {
            ex.setStatusCode(503);
            ex.setPersistent(false);
            ex.getResponseHeaders().put(Headers.RETRY_AFTER, "1");
            ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
            ex.getResponseSender().send(java.nio.ByteBuffer.wrap(BODY));
            return;
        }
        counted.handleRequest(ex);
    }

    /** New requests get the 503 from now on; the ones already in are still counted. */
    void stop() {
        stopping = true;
        counted.shutdown();
    }

    /** Waits up to {@code millis} for the requests already in to be answered; true when they all were. */
    boolean awaitAnswered(long millis) throws InterruptedException {
        return counted.awaitShutdown(millis);
    }
}
