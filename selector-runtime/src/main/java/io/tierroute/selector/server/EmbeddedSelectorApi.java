package io.tierroute.selector.server;

import io.tierroute.selector.config.AccessSettings;
import io.tierroute.selector.config.ServerSettings;
import io.tierroute.selector.http.ApiHandler;
import io.tierroute.selector.http.Credentials;
import io.tierroute.selector.http.DataPlaneRefusal;
import io.tierroute.selector.ingest.IndexWriter;
import io.tierroute.selector.metrics.SelectorMetrics;
import io.tierroute.selector.scheduling.Selector;
import io.undertow.Undertow;
import io.undertow.server.HttpHandler;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The selector's HTTP API ({@link ApiHandler}, {@link SelectorMetrics}, the {@link ApiListener} of
 * {@link SelectorServer}) for a {@link Selector} that another component built and drives: its index
 * writer, parameter store, tick and clock stay with their owner (the demo's live fleet, on virtual
 * time), so this class starts no thread but Undertow's and {@link #close} stops only the listener.
 * Reads are open, admin calls need the admin token, as on the standalone selector.
 */
public final class EmbeddedSelectorApi implements AutoCloseable {

    /**
     * @param server              host, port (0: any free port) and the listener's limits
     * @param adminToken          the operator token; null refuses every admin call (403)
     * @param adminTokenEnv       the environment variable it comes from, for messages
     * @param kafkaStatus         the {@code kafka} block of {@code GET /v1/params}, or null
     * @param dataPlaneClosedWhy  null serves the data plane; else why its POSTs get 409 ({@link DataPlaneRefusal})
     * @param kafkaStopped        which Kafka parts an Error stopped for good, or null while all run
     *                            ({@code KafkaPartsReport::stopped}; {@code /healthz} answers 503 with it), or null
     */
    public record Settings(ServerSettings server, String adminToken, String adminTokenEnv,
                           Supplier<Map<String, Object>> kafkaStatus, String dataPlaneClosedWhy,
                           Supplier<String> kafkaStopped) {

        /** Without a watch on the Kafka parts' threads. */
        public Settings(ServerSettings server, String adminToken, String adminTokenEnv,
                        Supplier<Map<String, Object>> kafkaStatus, String dataPlaneClosedWhy) {
            this(server, adminToken, adminTokenEnv, kafkaStatus, dataPlaneClosedWhy, null);
        }

        /** Never the token: the generated one would print it into any log line that mentions the settings. */
        @Override
        public String toString() {
            return "Settings[server=" + server + ", adminToken=" + (adminToken == null ? "unset" : "set")
                    + ", adminTokenEnv=" + adminTokenEnv + ", dataPlaneClosedWhy=" + dataPlaneClosedWhy + "]";
        }
    }

    private final Undertow undertow;
    private final InetSocketAddress address;
    private boolean closed;

    private EmbeddedSelectorApi(Undertow undertow) {
        this.undertow = undertow;
        this.address = ApiListener.address(undertow);
    }

    /**
     * Serves {@code selector}'s API, with {@code writer} (where its KV events go) and {@code metrics}
     * (registered on that selector); returns once the listener is bound.
     *
     * @throws IllegalArgumentException when {@code s} asks for TLS, which this API does not serve (plain HTTP on
     *                                  the owner's loopback); refused rather than silently served without it
     * @throws IllegalStateException naming the address when it cannot be bound
     */
    public static EmbeddedSelectorApi start(Selector selector, IndexWriter writer, SelectorMetrics metrics, Settings s) {
        if (s.server().tls() != null) {
            throw new IllegalArgumentException("the embedded selector API serves plain HTTP only; got TLS settings ("
                    + s.server().tls().keyStore() + "): use tierroute selector with server.tls, or drop the TLS settings");
        }
        String token = s.adminToken() == null || s.adminToken().isEmpty() ? null : s.adminToken();
        // No parameter file to reload: the owner's store is the only source (POST /v1/params/reload: 409).
        Credentials credentials = Credentials.adminOnly(token);
        HttpHandler handler = new ApiHandler(selector, writer, metrics, s.server(), AccessSettings.DEFAULTS,
                credentials, s.adminTokenEnv(), null, s.kafkaStatus(), s.kafkaStopped());
        if (s.dataPlaneClosedWhy() != null) {
            handler = new DataPlaneRefusal(handler, metrics, s.dataPlaneClosedWhy(), AccessSettings.DEFAULTS, credentials,
                    s.adminTokenEnv());
        }
        return new EmbeddedSelectorApi(ApiListener.start(s.server(), null, handler, metrics));
    }

    /** The base URI, e.g. {@code http://127.0.0.1:8080}. */
    public URI uri() {
        return ApiListener.uri(address, false);
    }

    public int port() {
        return address.getPort();
    }

    /** Stops the listener; the selector and its owner's threads go on. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        undertow.stop();
    }
}
