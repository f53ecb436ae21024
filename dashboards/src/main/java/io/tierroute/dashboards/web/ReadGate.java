package io.tierroute.dashboards.web;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;

/**
 * Closes the read views (the page, its scripts, every {@code /api} read) behind the read token when
 * configured; the operator token opens them too, {@code /healthz} stays open for probes. A browser
 * gets an HTTP Basic challenge (any user name, the token as password) and then sends it with every
 * request of the page; scripts may send {@code Authorization: Bearer <token>}. Writes still need the
 * operator token on top ({@link OperatorAuth}).
 */
final class ReadGate implements HttpHandler {

    static final String HEALTH_PATH = "/healthz";

    private final HttpHandler next;
    private final boolean closed;
    private final Secret read;
    private final OperatorAuth operator;
    private final String readSource;

    ReadGate(HttpHandler next, boolean closed, String readToken, String readSource, OperatorAuth operator) {
        this.next = next;
        this.closed = closed;
        this.read = Secret.of(readToken);
        this.readSource = readSource;
        this.operator = operator;
    }

    @Override
    public void handleRequest(HttpServerExchange ex) throws Exception {
        if (!closed || ex.getRelativePath().equals(HEALTH_PATH)) {
            next.handleRequest(ex);
            return;
        }
        if (read == null && !operator.enabled()) {
            JsonIo.error(ex, 403, "the dashboard is closed to readers and no token is configured (set " + readSource
                    + " or the operator token before starting the dashboard)");
            return;
        }
        String header;
        try {
            header = Credentials.header(ex);
        } catch (HttpError e) {
            JsonIo.error(ex, e.status, e.getMessage());
            return;
        }
        String given = Credentials.any(header);
        // Hashed once (the header may be large); both comparisons always run, so the time does not tell
        // which token was tried.
        byte[] presented = given == null ? null : Secret.digestOf(given);
        boolean ok = presented != null && read != null && read.matches(presented);
        ok |= presented != null && operator.matches(presented);
        if (!ok) {
            ex.getResponseHeaders().put(Headers.WWW_AUTHENTICATE, "Basic realm=\"tierroute-dashboard\", charset=\"UTF-8\"");
            JsonIo.error(ex, 401, given == null
                    ? "the dashboard is closed to readers: send the read token as 'Authorization: Bearer <token>' "
                    + "(or as the password of HTTP Basic)"
                    : "the dashboard is closed to readers: the token is wrong");
            return;
        }
        next.handleRequest(ex);
    }
}
