package io.tierroute.selector.config;

/**
 * How the HTTP server listens, and the bounds it puts on each request.
 *
 * @param host           address to bind (loopback by default)
 * @param port           TCP port; 0 picks a free one
 * @param maxBodyBytes   larger request bodies are refused with 413
 * @param ioThreads      Undertow I/O threads (parse and route run on them)
 * @param workerThreads  Undertow worker threads (admin, reload, metrics scrapes)
 * @param maxHeaderBytes the request line and headers together; beyond it Undertow closes the connection
 * @param maxHeaders     headers per request; beyond it Undertow closes the connection
 * @param maxBatchEvents events in one POST /v1/kv-events or /v1/requests/events body; beyond it 413
 * @param tls            HTTPS settings, or null for plain HTTP
 * @param idleTimeoutMs  a keep-alive connection with no request for this long is closed. Keep it ABOVE
 *                       every client's own idle keep-alive timeout: a server that closes first races the
 *                       client's next request on that connection, which then gets no answer at all
 * @param requestParseTimeoutMs a request line and headers not complete this long after their first byte
 *                       close the connection (a client trickling headers holds no connection for long)
 * @param bodyTimeoutMs  a request body not complete this long after its headers is answered 408 and the connection
 *                       closed (a client that sends part of a body holds neither a connection nor its buffer for long)
 */
public record ServerSettings(String host, int port, int maxBodyBytes, int ioThreads, int workerThreads,
                             int maxHeaderBytes, int maxHeaders, int maxBatchEvents, TlsSettings tls,
                             int idleTimeoutMs, int requestParseTimeoutMs, int bodyTimeoutMs) {

    public static final int DEFAULT_MAX_HEADER_BYTES = 64 * 1024;
    public static final int DEFAULT_MAX_HEADERS = 100;
    public static final int DEFAULT_MAX_BATCH_EVENTS = 10_000;
    /**
     * 2 h: above the idle keep-alive of common clients (JDK HttpClient 20 min, Envoy's upstream 1 h,
     * Go's 90 s), so they, not the server, close idle connections. Undertow's own default is 60 s.
     */
    public static final int DEFAULT_IDLE_TIMEOUT_MS = 2 * 60 * 60 * 1000;
    public static final int DEFAULT_REQUEST_PARSE_TIMEOUT_MS = 10_000;
    /** 30 s: a gateway on the same network sends a 4 MiB body in well under a second. */
    public static final int DEFAULT_BODY_TIMEOUT_MS = 30_000;

    public static final ServerSettings DEFAULTS = new ServerSettings("127.0.0.1", 8080, 4 * 1024 * 1024, 2, 16);

    /** Plain HTTP with the default header and batch bounds. */
    public ServerSettings(String host, int port, int maxBodyBytes, int ioThreads, int workerThreads) {
        this(host, port, maxBodyBytes, ioThreads, workerThreads, DEFAULT_MAX_HEADER_BYTES, DEFAULT_MAX_HEADERS,
                DEFAULT_MAX_BATCH_EVENTS, null, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_REQUEST_PARSE_TIMEOUT_MS,
                DEFAULT_BODY_TIMEOUT_MS);
    }

    public ServerSettings withHost(String h) {
        return new ServerSettings(h, port, maxBodyBytes, ioThreads, workerThreads, maxHeaderBytes, maxHeaders,
                maxBatchEvents, tls, idleTimeoutMs, requestParseTimeoutMs, bodyTimeoutMs);
    }

    public ServerSettings withPort(int p) {
        return new ServerSettings(host, p, maxBodyBytes, ioThreads, workerThreads, maxHeaderBytes, maxHeaders,
                maxBatchEvents, tls, idleTimeoutMs, requestParseTimeoutMs, bodyTimeoutMs);
    }

    public ServerSettings withTls(TlsSettings t) {
        return new ServerSettings(host, port, maxBodyBytes, ioThreads, workerThreads, maxHeaderBytes, maxHeaders,
                maxBatchEvents, t, idleTimeoutMs, requestParseTimeoutMs, bodyTimeoutMs);
    }
}
