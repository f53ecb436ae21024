package io.tierroute.selector.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.tierroute.selector.metrics.SelectorMetrics;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The API's outermost handler: decodes the request target once, strictly ({@link PercentDecoding}), before anything
 * routes on it, and bounds its parameters. The listener has Undertow leave the target undecoded and parse far more
 * parameters than this allows ({@code ApiListener}), so that an escape that is not UTF-8 and a request with too many
 * parameters get the API's JSON 400 saying so, where Undertow routed on U+FFFD and answered a bare 400. (A '%' without
 * two hex digits mostly never gets here: Undertow's request parser refuses it with a bare 400 whatever its options;
 * {@code %%41}, a '%' before a valid escape, passes it and is refused here.)
 */
public final class RequestTarget implements HttpHandler {

    /** Query parameters (and, apart, path parameters) a request may have; the API reads at most one, dry_run. */
    public static final int MAX_PARAMETERS = 1000;

    private final HttpHandler next;
    private final SelectorMetrics metrics;

    public RequestTarget(HttpHandler next, SelectorMetrics metrics) {
        this.next = next;
        this.metrics = metrics;
    }

    @Override
    public void handleRequest(HttpServerExchange ex) throws Exception {
        try {
            decode(ex);
        } catch (ApiError e) {
            refuse(ex, e);
            return;
        }
        next.handleRequest(ex);
    }

    private static void decode(HttpServerExchange ex) {
        String path = PercentDecoding.decode(ex.getRequestPath(), false, "the path");
        String relative = ex.getRelativePath().equals(ex.getRequestPath()) ? path
                : PercentDecoding.decode(ex.getRelativePath(), false, "the path");
        ex.setRequestPath(path);
        ex.setRelativePath(relative);
        decodeParameters(ex.getQueryParameters(), "query", ex::addQueryParam);
        decodeParameters(ex.getPathParameters(), "path", ex::addPathParam);
    }

    /** Replaces {@code raw}'s names and values with their decoded forms (through {@code add}), after counting them. */
    private static void decodeParameters(Map<String, Deque<String>> raw, String kind, BiConsumer<String, String> add) {
        if (raw.isEmpty()) {
            return;
        }
        int count = 0;
        for (Deque<String> values : raw.values()) {
            count += values.size();
        }
        if (count > MAX_PARAMETERS) {
            throw new ApiError(400, count + " " + kind + " parameters; at most " + MAX_PARAMETERS + " are read (the API "
                    + "takes one at most: dry_run on POST /v1/route)");
        }
        List<String[]> decoded = new ArrayList<>(count);
        for (Map.Entry<String, Deque<String>> e : raw.entrySet()) {
            String name = PercentDecoding.decode(e.getKey(), true, "a " + kind + " parameter's name");
            for (String v : e.getValue()) {
                decoded.add(new String[] {name, PercentDecoding.decode(v, true, kind + " parameter '" + name + "'")});
            }
        }
        raw.clear();
        for (String[] p : decoded) {
            add.accept(p[0], p[1]);
        }
    }

    private void refuse(HttpServerExchange ex, ApiError e) {
        byte[] body;
        try {
            body = Json.MAPPER.writeValueAsBytes(Map.of("error", e.getMessage()));
        } catch (JsonProcessingException x) {
            body = "{\"error\":\"unprintable error\"}".getBytes(StandardCharsets.UTF_8);
        }
        metrics.httpStatus(e.status);
        ex.setStatusCode(e.status);
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
        ex.getResponseSender().send(ByteBuffer.wrap(body));
    }
}
