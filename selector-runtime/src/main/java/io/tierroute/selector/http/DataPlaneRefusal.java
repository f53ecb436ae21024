package io.tierroute.selector.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.tierroute.selector.config.AccessSettings;
import io.tierroute.selector.metrics.SelectorMetrics;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;

import java.nio.ByteBuffer;
import java.util.Map;

/**
 * In front of an {@link ApiHandler} whose selector routes workers that no HTTP client can reach (the
 * demo's simulated fleet): the data-plane POSTs ({@code /v1/route}, {@code /v1/requests/events},
 * {@code /v1/kv-events}, {@code /v1/telemetry}) get 409 with a JSON {@code error} saying why, since a
 * request routed there would never be served and foreign events would corrupt the fleet's own
 * accounting. {@code POST /v1/route?dry_run=true} passes: it admits nothing. Everything else (reads,
 * admin, wrong methods) goes to the API unchanged. The API's access check runs first, as for any route: a
 * caller without the data-plane token (when one is required) gets its 401 / 403, not the 409, so the
 * refusal says nothing about the selector to an unauthorised caller.
 */
public final class DataPlaneRefusal implements HttpHandler {

    private final HttpHandler api;
    private final SelectorMetrics metrics;
    private final String why;
    private final AccessControl access;

    /**
     * @param api           the selector's API
     * @param metrics       counts the 409s with the API's other responses
     * @param why           why the data plane is closed, e.g. "this selector routes the demo's simulated fleet"
     * @param access        the API's access settings (as given to its {@link ApiHandler}), checked before the refusal
     * @param credentials   the API's tokens
     * @param adminTokenEnv the admin token's environment variable, for messages
     */
    public DataPlaneRefusal(HttpHandler api, SelectorMetrics metrics, String why, AccessSettings access,
                            Credentials credentials, String adminTokenEnv) {
        this.api = api;
        this.metrics = metrics;
        this.why = why;
        this.access = new AccessControl(access, credentials, adminTokenEnv);
    }

    @Override
    public void handleRequest(HttpServerExchange ex) throws Exception {
        Route route = Route.match(ex.getRelativePath());
        if (route == null || route.access() != Route.Access.DATA || !ex.getRequestMethod().equals(route.method())
                || (route == Route.ROUTE && RouteQuery.dryRunOrMalformed(ex))) { // the API answers a malformed query
            api.handleRequest(ex);
            return;
        }
        try {
            access.check(ex, route);
        } catch (ApiError e) {
            answer(ex, e.status, e.getMessage());
            return;
        }
        String message = route == Route.ROUTE
                ? why + ", whose engines cannot serve a request sent here: POST /v1/route is answered only with "
                        + "?dry_run=true (where the request would go and why; nothing is admitted)"
                : why + ", whose engines report their own events to it: POST " + route.pattern()
                        + " is refused so that nothing else changes its view of them";
        answer(ex, 409, message);
    }

    private void answer(HttpServerExchange ex, int status, String message) {
        byte[] body;
        try {
            body = Json.MAPPER.writeValueAsBytes(Map.of("error", message));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise an error", e);
        }
        metrics.httpStatus(status);
        ex.setStatusCode(status);
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
        ex.getResponseSender().send(ByteBuffer.wrap(body));
    }
}
