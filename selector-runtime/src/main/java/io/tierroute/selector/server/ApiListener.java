package io.tierroute.selector.server;

import io.tierroute.selector.config.ServerSettings;
import io.tierroute.selector.http.ApiHandler;
import io.undertow.Undertow;
import io.undertow.UndertowOptions;
import io.undertow.server.HttpHandler;
import io.undertow.server.handlers.HttpContinueReadHandler;

import javax.net.ssl.SSLContext;
import java.net.InetSocketAddress;
import java.net.URI;

/**
 * The Undertow listener of the selector's HTTP API with the limits of {@code server:} (header sizes,
 * query parameters, timeouts, threads): one place, so the standalone {@link SelectorServer}
 * and the {@link EmbeddedSelectorApi} of the demo answer with the same bounds.
 */
final class ApiListener {

    /**
     * Query parameters per request the listener parses; past it Undertow answers a bare 400 before the handler runs.
     * The API reads at most one ({@code dry_run}) and refuses any other on a POST with a JSON 400 naming it, so this
     * only has to be large enough that such a refusal is the handler's; the URL's length is bounded by
     * {@code server.maxHeaderBytes}.
     */
    static final int MAX_QUERY_PARAMETERS = 1000;

    private ApiListener() {
    }

    /**
     * Binds {@code s.host():s.port()} (HTTPS only when {@code ssl} is given) and serves {@code handler}.
     *
     * @throws IllegalStateException naming the address when it cannot be bound
     */
    static Undertow start(ServerSettings s, SSLContext ssl, HttpHandler handler) {
        Undertow.Builder b = Undertow.builder();
        if (ssl != null) {
            b.addHttpsListener(s.port(), s.host(), ssl); // HTTPS only: no plain listener to fall back to
        } else {
            b.addHttpListener(s.port(), s.host());
        }
        Undertow u = b
                .setServerOption(UndertowOptions.MAX_HEADER_SIZE, s.maxHeaderBytes())
                .setServerOption(UndertowOptions.MAX_HEADERS, s.maxHeaders())
                .setServerOption(UndertowOptions.MAX_PARAMETERS, MAX_QUERY_PARAMETERS)
                .setServerOption(UndertowOptions.MAX_ENTITY_SIZE, ApiHandler.maxEntityBytes(s.maxBodyBytes()))
                .setIoThreads(s.ioThreads())
                .setWorkerThreads(s.workerThreads())
                .setServerOption(UndertowOptions.ALWAYS_SET_KEEP_ALIVE, false)
                .setServerOption(UndertowOptions.RECORD_REQUEST_START_TIME, false)
                .setServerOption(UndertowOptions.NO_REQUEST_TIMEOUT, s.idleTimeoutMs())
                .setServerOption(UndertowOptions.REQUEST_PARSE_TIMEOUT, s.requestParseTimeoutMs())
                // Expect: 100-continue is answered when the handler starts reading the body (curl waits 1 s otherwise).
                .setHandler(new HttpContinueReadHandler(handler))
                .build();
        try {
            u.start();
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot listen on " + s.host() + ":" + s.port() + ": "
                    + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()), e);
        }
        return u;
    }

    /** The bound address of a started listener (the real port when 0 was asked for). */
    static InetSocketAddress address(Undertow u) {
        return (InetSocketAddress) u.getListenerInfo().get(0).getAddress();
    }

    /** {@code http://127.0.0.1:8080}, {@code https://[::1]:8443}. */
    static URI uri(InetSocketAddress address, boolean https) {
        String host = address.getAddress().getHostAddress();
        if (host.contains(":")) {
            host = "[" + host + "]";
        }
        return URI.create((https ? "https://" : "http://") + host + ":" + address.getPort());
    }
}
