package io.tierroute.selector.server;

import io.tierroute.selector.config.ServerSettings;
import io.tierroute.selector.http.ApiHandler;
import io.tierroute.selector.http.RequestTarget;
import io.tierroute.selector.metrics.SelectorMetrics;
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
     * Query (and, apart, path) parameters per request Undertow parses; past it its parser answers a bare 400 before any
     * handler runs. {@link RequestTarget} refuses more than {@link RequestTarget#MAX_PARAMETERS} with a JSON 400, so this
     * is set past what a request head can hold: a parameter takes two bytes ({@code a&}), and the parser sees at most
     * {@code server.maxHeaderBytes} plus one read buffer (16 KiB at most), so up to a 112 KiB limit (64 KiB by default)
     * no request reaches it. It still bounds the map a larger limit would let a request line build.
     */
    static final int PARSED_PARAMETERS = 65_536;

    private ApiListener() {
    }

    /**
     * Binds {@code s.host():s.port()} (HTTPS only when {@code ssl} is given) and serves {@code handler}, behind the
     * {@link RequestTarget} that decodes what this listener leaves undecoded ({@code metrics} counts its 400s).
     *
     * @throws IllegalStateException naming the address when it cannot be bound
     */
    static Undertow start(ServerSettings s, SSLContext ssl, HttpHandler handler, SelectorMetrics metrics) {
        Undertow.Builder b = Undertow.builder();
        if (ssl != null) {
            b.addHttpsListener(s.port(), s.host(), ssl); // HTTPS only: no plain listener to fall back to
        } else {
            b.addHttpListener(s.port(), s.host());
        }
        Undertow u = b
                .setServerOption(UndertowOptions.MAX_HEADER_SIZE, s.maxHeaderBytes())
                .setServerOption(UndertowOptions.MAX_HEADERS, s.maxHeaders())
                .setServerOption(UndertowOptions.MAX_PARAMETERS, PARSED_PARAMETERS)
                // Undertow would decode an escape that is not UTF-8 to U+FFFD and route on it: RequestTarget decodes.
                .setServerOption(UndertowOptions.DECODE_URL, false)
                .setServerOption(UndertowOptions.MAX_ENTITY_SIZE, ApiHandler.maxEntityBytes(s.maxBodyBytes()))
                .setIoThreads(s.ioThreads())
                .setWorkerThreads(s.workerThreads())
                .setServerOption(UndertowOptions.ALWAYS_SET_KEEP_ALIVE, false)
                .setServerOption(UndertowOptions.RECORD_REQUEST_START_TIME, false)
                .setServerOption(UndertowOptions.NO_REQUEST_TIMEOUT, s.idleTimeoutMs())
                .setServerOption(UndertowOptions.REQUEST_PARSE_TIMEOUT, s.requestParseTimeoutMs())
                // Expect: 100-continue is answered when the handler starts reading the body (curl waits 1 s otherwise).
                .setHandler(new HttpContinueReadHandler(new RequestTarget(handler, metrics)))
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
