package io.tierroute.selector.config;

/**
 * How the HTTP server listens.
 *
 * @param host          address to bind (loopback by default)
 * @param port          TCP port; 0 picks a free one
 * @param maxBodyBytes  larger request bodies are refused with 413
 * @param ioThreads     Undertow I/O threads (parse and route run on them)
 * @param workerThreads Undertow worker threads (admin, reload, metrics scrapes)
 */
public record ServerSettings(String host, int port, int maxBodyBytes, int ioThreads, int workerThreads) {

    public static final ServerSettings DEFAULTS = new ServerSettings("127.0.0.1", 8080, 4 * 1024 * 1024, 2, 16);

    public ServerSettings withHost(String h) {
        return new ServerSettings(h, port, maxBodyBytes, ioThreads, workerThreads);
    }

    public ServerSettings withPort(int p) {
        return new ServerSettings(host, p, maxBodyBytes, ioThreads, workerThreads);
    }
}
