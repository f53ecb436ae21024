package io.tierroute.dashboards.web;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;

import java.util.Deque;
import java.util.Map;

/**
 * The server's outermost handler: refuses a request with more than {@link #MAX} query parameters (or, apart, path
 * parameters) with the JSON 400 every other error has. Undertow's own limit is set past what a request head can hold
 * ({@link DashboardServer#PARSED_PARAMETERS}): its parser would answer a bare 400 before any handler runs.
 */
final class ParameterLimit implements HttpHandler {

    /** The API reads at most one (?last=). */
    static final int MAX = 16;

    private final HttpHandler next;

    ParameterLimit(HttpHandler next) {
        this.next = next;
    }

    @Override
    public void handleRequest(HttpServerExchange ex) throws Exception {
        int query = count(ex.getQueryParameters());
        int path = count(ex.getPathParameters());
        if (query > MAX || path > MAX) {
            JsonIo.error(ex, 400, (query > MAX ? query + " query" : path + " path") + " parameters; at most " + MAX
                    + " are read (the API takes one at most: ?last=N on versions and timelines)");
            return;
        }
        next.handleRequest(ex);
    }

    private static int count(Map<String, Deque<String>> parameters) {
        int n = 0;
        for (Deque<String> values : parameters.values()) {
            n += values.size();
        }
        return n;
    }
}
