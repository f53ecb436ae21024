package io.tierroute.dashboards.web;

import io.tierroute.dashboards.control.ControlWriter;
import io.tierroute.dashboards.history.HistoryReader;
import io.undertow.Handlers;
import io.undertow.Undertow;
import io.undertow.server.handlers.BlockingHandler;
import io.undertow.server.handlers.PathHandler;
import io.undertow.server.handlers.resource.ClassPathResourceManager;
import io.undertow.server.handlers.resource.ResourceHandler;

import java.io.IOException;
import java.io.InputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Properties;

/**
 * The dashboard's HTTP server (Undertow): the page and its scripts from this jar under {@code /},
 * uPlot from its WebJar under {@code /vendor/uplot/} (no CDN), the JSON API under {@code /api/v1}
 * ({@link ApiRoutes}) and {@code /healthz}.
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

    /**
     * Starts listening.
     *
     * @param host          address to bind (127.0.0.1 by default in the CLI)
     * @param port          TCP port, 0 for a free one
     * @param token         operator token for pin / unpin / rollback, or null to refuse them (403)
     * @param tokenSource   where the token comes from (an environment variable), for messages
     * @param defaultScope  the scope the page opens on
     * @throws IllegalStateException naming the address when the port is taken or cannot be bound
     */
    public static DashboardServer start(HistoryReader reader, ControlWriter writer, String host, int port,
                                        String token, String tokenSource, String defaultScope) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be in [0, 65535], got " + port);
        }
        ClassLoader cl = DashboardServer.class.getClassLoader();
        ApiRoutes api = new ApiRoutes(reader, writer, new OperatorAuth(token, tokenSource), defaultScope);
        PathHandler paths = Handlers.path(new ResourceHandler(new ClassPathResourceManager(cl, STATIC_ROOT))
                        .setWelcomeFiles("index.html").setCachable(r -> false))
                .addPrefixPath("/vendor/uplot", new ResourceHandler(new ClassPathResourceManager(cl,
                        "META-INF/resources/webjars/uplot/" + uplotVersion(cl) + "/dist")))
                .addPrefixPath("/api", new BlockingHandler(api.handler()))
                .addExactPath("/healthz", api.health());
        Undertow u = Undertow.builder().addHttpListener(port, host).setHandler(paths).setIoThreads(1)
                .setWorkerThreads(8).build();
        try {
            u.start();
        } catch (RuntimeException e) {
            u.stop();
            Throwable c = e;
            while (c != null && !(c instanceof BindException)) {
                c = c.getCause();
            }
            throw new IllegalStateException("cannot listen on " + host + ":" + port + ": "
                    + (c != null ? "the port is taken or the address is not local (" + c.getMessage()
                    + "); choose another with --port" : e.toString()), e);
        }
        int bound = ((InetSocketAddress) u.getListenerInfo().get(0).getAddress()).getPort();
        String h = host.contains(":") ? "[" + host + "]" : host;
        return new DashboardServer(u, URI.create("http://" + h + ":" + bound + "/"));
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
