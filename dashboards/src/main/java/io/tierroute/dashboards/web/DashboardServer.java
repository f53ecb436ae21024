package io.tierroute.dashboards.web;

import io.tierroute.dashboards.control.ControlText;
import io.tierroute.dashboards.control.ControlWriter;
import io.tierroute.dashboards.history.HistoryReader;
import io.undertow.Handlers;
import io.undertow.Undertow;
import io.undertow.UndertowOptions;
import io.undertow.predicate.Predicates;
import io.undertow.server.HttpHandler;
import io.undertow.server.handlers.HttpContinueReadHandler;
import io.undertow.server.handlers.BlockingHandler;
import io.undertow.server.handlers.PathHandler;
import io.undertow.server.handlers.encoding.ContentEncodingRepository;
import io.undertow.server.handlers.encoding.EncodingHandler;
import io.undertow.server.handlers.encoding.GzipEncodingProvider;
import io.undertow.server.handlers.resource.ClassPathResourceManager;
import io.undertow.server.handlers.resource.ResourceHandler;
import io.undertow.util.Headers;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.InputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Properties;

/**
 * The dashboard's HTTP server (Undertow): the page and its scripts from this jar under {@code /},
 * uPlot from its WebJar under {@code /vendor/uplot/} (no CDN), the JSON API under {@code /api/v1}
 * ({@link ApiRoutes}) and {@code /healthz}; every route is listed in {@link DashboardRoute}. Reads can be
 * closed behind a token ({@link ReadGate}); writes always need an operator token, whose operator is the audit actor; HTTPS with {@link WebTls}.
 */
public final class DashboardServer implements AutoCloseable {

    static final String STATIC_ROOT = "io/tierroute/dashboards/web/static";
    private static final String UPLOT_POM = "META-INF/maven/org.webjars.npm/uplot/pom.properties";

    private final Undertow server;
    private final URI uri;

    private DashboardServer(Undertow server, URI uri) {
        this.server = server;
        this.uri = uri;
    }

    /** Request line + headers; a browser's are a few KiB (Undertow's own default is 1 MiB). */
    static final int MAX_HEADER_BYTES = 32 * 1024;
    /** Headers per request. */
    static final int MAX_HEADERS = 64;
    /**
     * Query (and, apart, path) parameters per request Undertow's parser takes; past it the parser answers a bare 400
     * before any handler runs. {@link ParameterLimit} refuses more than {@value ParameterLimit#MAX} with a JSON 400, so this is set past what a
     * request head can hold: a parameter takes two bytes ({@code a&}), and the parser sees at most
     * {@value #MAX_HEADER_BYTES} bytes plus one read buffer (16 KiB at most). (A malformed percent escape, {@code %zz},
     * is still the parser's bare 400 and closed connection, whatever its options: it offers no hook for a text.)
     */
    static final int PARSED_PARAMETERS = 65_536;
    /** Cookies per request (the dashboard sets none). */
    static final int MAX_COOKIES = 16;
    /**
     * Idle keep-alive connections are closed after 10 minutes, later than browsers close theirs (Chrome
     * 5 min, Firefox 115 s): with Undertow's own 60 s the server could close a socket just as the page
     * sent its next poll on it.
     */
    static final int IDLE_TIMEOUT_MS = 10 * 60 * 1000;
    /** A request's line and headers must arrive within 10 s (slow-header clients lose the connection). */
    static final int REQUEST_PARSE_TIMEOUT_MS = 10_000;
    /** Smaller responses go out as they are: gzip's header and a deflate block would not pay for themselves. */
    static final long GZIP_MIN_BYTES = 1024;

    /**
     * Who may do what, and how the server listens.
     *
     * @param host           address to bind (127.0.0.1 by default in the CLI)
     * @param port           TCP port, 0 for a free one
     * @param operators      who holds which operator token for pin / unpin / rollback (each write's audit actor);
     *                       {@link OperatorTokens#none()} to refuse them (403)
     * @param operatorSource where the operator tokens come from (an environment variable), for messages
     * @param readsClosed    true: the page and the read API need the read (or an operator) token
     * @param readToken      the read token, or null
     * @param readSource     where the read token comes from, for messages
     * @param tls            HTTPS settings, or null for plain HTTP
     */
    public record Options(String host, int port, OperatorTokens operators, String operatorSource, boolean readsClosed,
                          String readToken, String readSource, WebTls tls) {
        @Override
        public String toString() {
            return "Options[" + host + ":" + port + ", operators " + operators.names()
                    + ", reads " + (readsClosed ? "closed" : "open") + ", read token "
                    + (readToken == null ? "unset" : "set") + ", " + (tls == null ? "http" : tls) + "]";
        }
    }

    /** A path that is no file of the page, no API route and not the health check: said in JSON, as the API's errors. */
    private static final HttpHandler NOT_FOUND = ex -> {
        String path = ControlText.printable(ex.getRequestPath());
        JsonIo.error(ex, 404, "nothing at " + (path.length() > 200 ? path.substring(0, 200) + "…" : path)
                + " (the page is at /, its API under " + DashboardRoute.API_PREFIX + ")");
    };

    /**
     * Answers in gzip where the client accepts it and the body is over {@value #GZIP_MIN_BYTES} bytes. The page
     * re-reads a scope's versions and timelines whenever the history changes (every snapshot: once a second in the
     * demo), and that JSON, about 1 MB at 240 versions, shrinks about tenfold. Nothing secret is in a response
     * (tokens travel only in request headers), so compression exposes nothing to a BREACH-style guess. A range
     * request (of a static file) is answered as it is: a gzipped part would not match its Content-Range. Every
     * answer says it varies with Accept-Encoding, so that a cache does not hand gzip to a client that did not ask.
     */
    private static HttpHandler gzipped(HttpHandler next) {
        HttpHandler encoding = new EncodingHandler(next, new ContentEncodingRepository().addEncodingHandler("gzip",
                new GzipEncodingProvider(), 50, Predicates.and(Predicates.maxContentSize(GZIP_MIN_BYTES),
                        ex -> !ex.getRequestHeaders().contains(Headers.RANGE))));
        return ex -> {
            ex.getResponseHeaders().add(Headers.VARY, Headers.ACCEPT_ENCODING_STRING);
            encoding.handleRequest(ex);
        };
    }

    /**
     * Starts listening.
     *
     * @param defaultScope the scope the page opens on
     * @throws IllegalStateException naming the address when the port is taken or cannot be bound, or the
     *                               key store when it cannot be loaded
     */
    public static DashboardServer start(HistoryReader reader, ControlWriter writer, Options o, String defaultScope) {
        if (o.port() < 0 || o.port() > 65535) {
            throw new IllegalArgumentException("port must be in [0, 65535], got " + o.port());
        }
        ClassLoader cl = DashboardServer.class.getClassLoader();
        OperatorAuth operator = new OperatorAuth(o.operators(), o.operatorSource());
        ApiRoutes api = new ApiRoutes(reader, writer, operator, defaultScope);
        PathHandler paths = Handlers.path(new StaticFiles(new ResourceHandler(new ClassPathResourceManager(cl,
                        STATIC_ROOT), NOT_FOUND).setWelcomeFiles("index.html").setCachable(r -> false), NOT_FOUND))
                .addPrefixPath("/vendor/uplot", new StaticFiles(new ResourceHandler(new ClassPathResourceManager(cl,
                        "META-INF/resources/webjars/uplot/" + uplotVersion(cl) + "/dist"), NOT_FOUND), NOT_FOUND))
                .addPrefixPath(DashboardRoute.API_PREFIX, new BlockingHandler(api.handler()))
                .addExactPath(ReadGate.HEALTH_PATH, api.health());
        HttpHandler root = new ReadGate(gzipped(paths), o.readsClosed(), o.readToken(),
                o.readSource() == null ? "the read token" : o.readSource(), operator);
        SSLContext ssl = o.tls() == null ? null : o.tls().context();
        Undertow.Builder b = Undertow.builder();
        if (ssl != null) {
            b.addHttpsListener(o.port(), o.host(), ssl); // HTTPS only
        } else {
            b.addHttpListener(o.port(), o.host());
        }
        Undertow u = b.setHandler(new SecurityHeaders(new HttpContinueReadHandler(new ParameterLimit(root))))
                .setIoThreads(1).setWorkerThreads(8)
                .setServerOption(UndertowOptions.MAX_HEADER_SIZE, MAX_HEADER_BYTES)
                .setServerOption(UndertowOptions.MAX_HEADERS, MAX_HEADERS)
                .setServerOption(UndertowOptions.MAX_PARAMETERS, PARSED_PARAMETERS)
                .setServerOption(UndertowOptions.MAX_COOKIES, MAX_COOKIES)
                // Routes see the raw path and ApiRoutes decodes the scope (PathSegment): Undertow's decoding keeps %2F,
                // so a scope with '/' in it could not be named. (A malformed escape, %zz, its parser answers with its
                // own empty 400 either way, before any handler.)
                .setServerOption(UndertowOptions.DECODE_URL, false)
                .setServerOption(UndertowOptions.NO_REQUEST_TIMEOUT, IDLE_TIMEOUT_MS)
                .setServerOption(UndertowOptions.REQUEST_PARSE_TIMEOUT, REQUEST_PARSE_TIMEOUT_MS)
                .build();
        try {
            u.start();
        } catch (RuntimeException e) {
            u.stop();
            throw new IllegalStateException("cannot listen on " + o.host() + ":" + o.port() + ": " + whyNotListening(e), e);
        }
        int bound = ((InetSocketAddress) u.getListenerInfo().get(0).getAddress()).getPort();
        String h = o.host().contains(":") ? "[" + o.host() + "]" : o.host();
        return new DashboardServer(u, URI.create((ssl != null ? "https://" : "http://") + h + ":" + bound + "/"));
    }

    /** What an operator should change when Undertow cannot listen: the host, the port, or (unknown cause) nothing we know. */
    private static String whyNotListening(RuntimeException e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof UnknownHostException) {
                return "the host name does not resolve; give an address of this machine with --host";
            }
            if (c instanceof BindException) {
                // The JDK's two texts: EADDRNOTAVAIL ("Cannot assign requested address") is the host's, EADDRINUSE the port's.
                return String.valueOf(c.getMessage()).contains("assign requested address")
                        ? "the address is not one of this machine's (" + c.getMessage() + "); give one with --host"
                        : "the port is taken (" + c.getMessage() + "); choose another with --port";
            }
        }
        return e.toString();
    }

    /** The uPlot WebJar's version, read from its Maven metadata (so the page needs no version in its paths). */
    static String uplotVersion(ClassLoader cl) {
        try (InputStream in = cl.getResourceAsStream(UPLOT_POM)) {
            if (in == null) {
                throw new IllegalStateException("the uPlot WebJar (org.webjars.npm:uplot) is not on the classpath");
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + UPLOT_POM + ": " + e.getMessage(), e);
        }
    }

    /** {@code http://host:port/}. */
    public URI uri() {
        return uri;
    }

    @Override
    public void close() {
        server.stop();
    }
}
