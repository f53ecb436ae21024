package io.tierroute.dashboards.web;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.HeaderMap;
import io.undertow.util.HttpString;

/**
 * The browser-side rules every answer of the dashboard carries, set before the handler runs so that errors have them
 * too. The page has pin / unpin / rollback controls: no other site may frame it ({@code X-Frame-Options},
 * {@code frame-ancestors}); it loads its own script, styles and uPlot only and talks to its own API
 * ({@code default-src 'self'}: an injected script or a foreign image would not run or load); and a JSON error quoting a
 * client's text ({@code unknown scope '<b>x'}) is never sniffed into HTML ({@code nosniff}).
 */
final class SecurityHeaders implements HttpHandler {

    static final String CSP = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
            + "form-action 'none'; frame-ancestors 'none'";

    private static final HttpString CONTENT_SECURITY_POLICY = new HttpString("Content-Security-Policy");
    private static final HttpString X_CONTENT_TYPE_OPTIONS = new HttpString("X-Content-Type-Options");
    private static final HttpString X_FRAME_OPTIONS = new HttpString("X-Frame-Options");
    private static final HttpString REFERRER_POLICY = new HttpString("Referrer-Policy");

    private final HttpHandler next;

    SecurityHeaders(HttpHandler next) {
        this.next = next;
    }

    @Override
    public void handleRequest(HttpServerExchange exchange) throws Exception {
        HeaderMap h = exchange.getResponseHeaders();
        h.put(CONTENT_SECURITY_POLICY, CSP);
        h.put(X_CONTENT_TYPE_OPTIONS, "nosniff");
        h.put(X_FRAME_OPTIONS, "DENY");
        h.put(REFERRER_POLICY, "no-referrer");
        next.handleRequest(exchange);
    }
}
