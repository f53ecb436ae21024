package io.tierroute.dashboards;

import io.tierroute.dashboards.control.ControlWriter;
import io.tierroute.dashboards.history.HistoryReader;
import io.tierroute.dashboards.history.SnapshotHistory;
import io.tierroute.dashboards.web.DashboardServer;
import io.tierroute.dashboards.web.OperatorTokens;
import io.tierroute.dashboards.web.WebTls;

import java.net.URI;
import java.util.Optional;

/**
 * The whole dashboard in one object, for {@code tierroute dashboard} and the demo: a
 * {@link HistoryReader} into a {@link SnapshotHistory}, a {@link ControlWriter}, and the
 * {@link DashboardServer}. {@link #close()} stops all three.
 */
public final class Dashboard implements AutoCloseable {

    /**
     * @param bootstrapServers Kafka {@code HOST:PORT[,...]}
     * @param host             address to bind
     * @param port             TCP port (0: a free one)
     * @param token            operator token, or null / empty to refuse every write
     * @param tokenSource      where the token came from (for messages)
     * @param defaultScope     the scope the page opens on
     * @param clientProperties extra Kafka client settings (credentials of a secured broker)
     * @param readsClosed      true: the page and the read API need the read token (or the operator token)
     * @param readToken        the read token, or null
     * @param readTokenSource  where the read token came from (for messages)
     * @param tls              HTTPS settings, or null for plain HTTP
     * @param operatorName     who holds {@code token} (the audit actor of its writes), or null for
     *                         {@link OperatorTokens#DEFAULT_NAME}
     * @param namedOperators   further operators with their own tokens (an operator tokens file)
     */
    public record Settings(String bootstrapServers, String host, int port, String token, String tokenSource,
                           String defaultScope, java.util.Properties clientProperties, boolean readsClosed,
                           String readToken, String readTokenSource, WebTls tls, String operatorName,
                           OperatorTokens namedOperators) {
        public Settings {
            namedOperators = namedOperators == null ? OperatorTokens.none() : namedOperators;
        }

        public Settings(String bootstrapServers, String host, int port, String token, String tokenSource,
                        String defaultScope, java.util.Properties clientProperties, boolean readsClosed,
                        String readToken, String readTokenSource, WebTls tls) {
            this(bootstrapServers, host, port, token, tokenSource, defaultScope, clientProperties, readsClosed,
                    readToken, readTokenSource, tls, null, OperatorTokens.none());
        }

        public Settings(String bootstrapServers, String host, int port, String token, String tokenSource,
                        String defaultScope) {
            this(bootstrapServers, host, port, token, tokenSource, defaultScope, new java.util.Properties());
        }

        public Settings(String bootstrapServers, String host, int port, String token, String tokenSource,
                        String defaultScope, java.util.Properties clientProperties) {
            this(bootstrapServers, host, port, token, tokenSource, defaultScope, clientProperties, false, null, null,
                    null);
        }

        /** These settings with the reads closed behind {@code readToken} (from {@code readTokenSource}). */
        public Settings withClosedReads(String readToken, String readTokenSource) {
            return new Settings(bootstrapServers, host, port, token, tokenSource, defaultScope, clientProperties, true,
                    readToken, readTokenSource, tls, operatorName, namedOperators);
        }

        public Settings withTls(WebTls t) {
            return new Settings(bootstrapServers, host, port, token, tokenSource, defaultScope, clientProperties,
                    readsClosed, readToken, readTokenSource, t, operatorName, namedOperators);
        }

        /** These settings with {@code token} held by {@code name} and {@code named} operators besides. */
        public Settings withOperators(String name, OperatorTokens named) {
            return new Settings(bootstrapServers, host, port, token, tokenSource, defaultScope, clientProperties,
                    readsClosed, readToken, readTokenSource, tls, name, named);
        }

        /**
         * Every operator credential: {@code token} (named {@code operatorName}) and the named ones.
         *
         * @throws IllegalArgumentException on a bad name, a token with whitespace around it, a name or token configured
         *                                  twice, or a read token that is an operator's token
         */
        public OperatorTokens operators() {
            requireStripped(token, tokenSource);
            OperatorTokens all = OperatorTokens.single(token, operatorName,
                    tokenSource == null ? null : "the token in " + tokenSource)
                    .plus(namedOperators);
            // A read token opens the page to everyone it is given to: one that is also an operator's would let every
            // reader pin, unpin and roll back.
            Optional<String> holder = readsClosed && readToken != null && !readToken.isEmpty()
                    ? all.identify(readToken) : Optional.empty();
            if (holder.isPresent()) {
                throw new IllegalArgumentException("the read token (" + readTokenSource + ") is also the token of "
                        + "operator '" + holder.get() + "'" + all.whereConfigured(holder.get()).map(w -> " (" + w + ")")
                        .orElse("") + ": every reader could pin, unpin and roll back; give the readers a token of "
                        + "their own");
            }
            return all;
        }

        /**
         * A token with whitespace around it (a secret file's trailing newline), or of whitespace only, matches nothing a
         * client can send (HTTP drops a header value's surrounding whitespace) yet would turn the writes on: refused.
         * Whoever reads the token strips it first, as the CLI does (selector-runtime's TokenVariable, one rule for the
         * selector's tokens and the dashboard's; this module may not depend on it, DESIGN.md §2).
         */
        static void requireStripped(String token, String source) {
            if (token != null && !token.isEmpty() && !token.equals(token.strip())) {
                throw new IllegalArgumentException("the token from " + source + (token.isBlank() ? " is only whitespace"
                        : " has whitespace around it") + ": strip it (no client can send it as it is)");
            }
        }

        /** Never shows the tokens or the Kafka client properties (they may hold a SASL password). */
        @Override
        public String toString() {
            return "Settings[" + bootstrapServers + ", " + host + ":" + port + ", operator token "
                    + (token == null || token.isEmpty() ? "unset" : "set") + " (" + (operatorName == null
                    ? OperatorTokens.DEFAULT_NAME : operatorName) + "), named operators " + namedOperators.names()
                    + ", reads " + (readsClosed ? "closed" : "open")
                    + ", client properties " + clientProperties.stringPropertyNames() + ", "
                    + (tls == null ? "http" : tls) + "]";
        }
    }

    private final HistoryReader reader;
    private final ControlWriter writer;
    private final DashboardServer server;

    private Dashboard(HistoryReader reader, ControlWriter writer, DashboardServer server) {
        this.reader = reader;
        this.writer = writer;
        this.server = server;
    }

    /**
     * Starts the server first (so a taken port fails at once), then the reader and the writer.
     *
     * @throws IllegalArgumentException when the operator names or tokens are bad ({@link Settings#operators()})
     */
    public static Dashboard start(Settings s) {
        OperatorTokens operators = s.operators(); // a bad operator configuration fails before any client starts
        Settings.requireStripped(s.readToken(), s.readTokenSource());
        SnapshotHistory history = new SnapshotHistory();
        HistoryReader reader = new HistoryReader(s.bootstrapServers(), history, s.clientProperties());
        ControlWriter writer = new ControlWriter(s.bootstrapServers(), history, s.clientProperties(), reader::kafkaOutage,
                reader::missingTopics);
        DashboardServer server;
        try {
            server = DashboardServer.start(reader, writer, new DashboardServer.Options(s.host(), s.port(), operators,
                    s.tokenSource(), s.readsClosed(), s.readToken(), s.readTokenSource(), s.tls()), s.defaultScope());
        } catch (RuntimeException e) {
            writer.close();
            throw e;
        }
        reader.start();
        return new Dashboard(reader, writer, server);
    }

    public URI uri() {
        return server.uri();
    }

    public HistoryReader reader() {
        return reader;
    }

    public SnapshotHistory history() {
        return reader.history();
    }

    @Override
    public void close() {
        server.close();
        reader.close();
        writer.close();
    }
}
