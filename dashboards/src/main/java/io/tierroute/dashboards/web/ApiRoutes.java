package io.tierroute.dashboards.web;

import io.tierroute.dashboards.control.ControlRefusedException;
import io.tierroute.dashboards.control.ControlText;
import io.tierroute.dashboards.control.ControlUnconfirmedException;
import io.tierroute.dashboards.control.ControlWriter;
import io.tierroute.dashboards.history.HistoryReader;
import io.tierroute.dashboards.history.SnapshotHistory;
import io.undertow.Handlers;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.server.RoutingHandler;
import io.undertow.util.Headers;
import io.undertow.util.PathTemplateMatcher;
import io.undertow.util.PathTemplateMatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The JSON API, mounted under {@code /api} (its routes, in {@link #handler()}, start at {@code /v1}).
 * Reads come from the {@link SnapshotHistory}; writes go through the {@link ControlWriter} after {@link OperatorAuth}.
 * Every client error is a 4xx with {@code {"error": "..."}}; only bugs give 500, and are logged.
 */
final class ApiRoutes {

    private static final Logger log = LoggerFactory.getLogger(ApiRoutes.class);

    /**
     * Body of POST .../pin, .../unpin, .../rollback ({@code version} only for pin; {@code from}, the active
     * version the operator rolls back from, only for rollback). The audit actor is the operator the token
     * belongs to; {@code actor} is optional and, when sent, must name that operator (older clients sent it),
     * so a body can never put another name into the audit trail.
     */
    record ControlBody(Long version, Long from, String actor, String reason) {}

    private final SnapshotHistory history;
    private final HistoryReader reader;
    private final ControlWriter writer;
    private final OperatorAuth auth;
    private final String defaultScope;
    private final HistoryViews views;
    private final CalibrationView calibration;

    ApiRoutes(HistoryReader reader, ControlWriter writer, OperatorAuth auth, String defaultScope) {
        this.reader = reader;
        this.history = reader.history();
        this.writer = writer;
        this.auth = auth;
        this.defaultScope = defaultScope;
        this.views = new HistoryViews(history);
        this.calibration = new CalibrationView(history);
    }

    /** The {@code /api} routes of {@link DashboardRoute}, paths relative to {@code /api}. */
    RoutingHandler handler() {
        RoutingHandler r = Handlers.routing();
        PathTemplateMatcher<String> allowed = new PathTemplateMatcher<>();
        for (DashboardRoute route : DashboardRoute.values()) {
            HttpHandler h = handlerFor(route);
            if (h != null) {
                String template = route.template().substring(DashboardRoute.API_PREFIX.length());
                HttpHandler wrapped = wrap(route, h);
                r.add(route.method(), template, wrapped);
                if (route.method().equals("GET")) { // HEAD is GET without the body (RFC 9110 §9.3.2): probes use it
                    r.add("HEAD", template, wrapped);
                }
                allowed.add(template, allow(route.method()));
            }
        }
        r.setFallbackHandler(ex -> JsonIo.error(ex, 404, "no such endpoint: " + ex.getRequestMethod() + " "
                + ex.getRequestPath()));
        r.setInvalidMethodHandler(ex -> {
            PathTemplateMatcher.PathMatchResult<String> m = allowed.match(ex.getRelativePath());
            if (m != null) { // RFC 9110 §15.5.6: a 405 says what the resource takes
                ex.getResponseHeaders().put(Headers.ALLOW, m.getValue());
            }
            JsonIo.error(ex, 405, ex.getRequestMethod() + " is not allowed on " + ex.getRequestPath()
                    + (m == null ? "" : "; use " + m.getValue()));
        });
        return r;
    }

    /** The handler of an {@code /api} route; null for the routes DashboardServer serves itself. */
    private HttpHandler handlerFor(DashboardRoute route) {
        return switch (route) {
            case PAGE, VENDOR_SCRIPT, HEALTHZ -> null;
            case STATUS -> ex -> JsonIo.send(ex, 200, status());
            case VERSIONS -> ex -> JsonIo.send(ex, 200, views.versions(scope(ex), last(ex)));
            case VERSION -> ex -> JsonIo.send(ex, 200, views.version(scope(ex), version(ex)));
            case TIMELINES -> ex -> JsonIo.send(ex, 200, views.timelines(scope(ex), last(ex)));
            case RHO -> ex -> JsonIo.send(ex, 200, views.rho(scope(ex)));
            case CALIBRATION -> ex -> {
                views.scope(scope(ex));
                JsonIo.send(ex, 200, calibration.calibration(scope(ex)));
            };
            case PIN -> ex -> {
                String actor = auth.check(ex);
                checkQuery(ex, route);
                ControlBody b = noFrom(JsonIo.read(ex, ControlBody.class), "pin");
                requireSameActor(b, actor);
                if (b.version() == null) {
                    throw new HttpError(400, "field 'version' is required: the snapshot version to pin");
                }
                if (b.version() < 1) {
                    throw new HttpError(400, "field 'version' must be a version ≥ 1, got " + b.version());
                }
                JsonIo.send(ex, 200, writer.pin(scope(ex), b.version(), actor, b.reason()));
            };
            case UNPIN -> ex -> {
                String actor = auth.check(ex);
                checkQuery(ex, route);
                ControlBody b = noFrom(noVersion(JsonIo.read(ex, ControlBody.class), "unpin"), "unpin");
                requireSameActor(b, actor);
                JsonIo.send(ex, 200, writer.unpin(scope(ex), actor, b.reason()));
            };
            case ROLLBACK -> ex -> {
                String actor = auth.check(ex);
                checkQuery(ex, route);
                ControlBody b = noVersion(JsonIo.read(ex, ControlBody.class), "rollback");
                if (b.from() != null && b.from() < 1) {
                    throw new HttpError(400, "field 'from' must be a version ≥ 1 (the active one the rollback is from), "
                            + "got " + b.from());
                }
                requireSameActor(b, actor);
                JsonIo.send(ex, 200, writer.rollback(scope(ex), b.from(), actor, b.reason()));
            };
        };
    }

    /** {@code GET /healthz}: liveness, and whether the history has caught up. */
    HttpHandler health() {
        return ex -> {
            String method = ex.getRequestMethod().toString();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                ex.getResponseHeaders().put(Headers.ALLOW, allow("GET"));
                JsonIo.error(ex, 405, method + " is not allowed on " + ex.getRequestPath() + "; use GET");
                return;
            }
            JsonIo.send(ex, 200, Map.of("ok", true, "ready", history.ready()));
        };
    }

    /** The {@code Allow} header of a route taking {@code method}. */
    private static String allow(String method) {
        return method.equals("GET") ? "GET, HEAD" : method;
    }

    private Map<String, Object> status() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ready", history.ready());
        m.put("revision", history.revision());
        m.put("defaultScope", defaultScope);
        m.put("writesEnabled", auth.enabled());
        m.put("recordsRead", reader.recordsRead());
        m.put("badRecords", reader.badRecords());
        Long unreachableSince = reader.kafkaUnreachableSinceMs(); // first: its lastError is then the outage's
        m.put("lastError", reader.lastError());
        // ready means caught up once; these say whether the history still hears from Kafka (HistoryReader: outages)
        m.put("kafkaConnected", unreachableSince == null);
        m.put("kafkaUnreachableSinceMs", unreachableSince);
        // the topics replaced under the reader (recreated, another cluster): it re-read them from the beginning
        m.put("historyResets", reader.historyResets());
        m.put("lastHistoryReset", reader.lastHistoryReset());
        m.put("scopes", views.scopes());
        return m;
    }

    /** 403 when the body claims to act as someone other than the token's operator. */
    private static void requireSameActor(ControlBody b, String operator) {
        if (b.actor() != null && !b.actor().strip().equals(operator)) {
            throw new HttpError(403, "field 'actor' does not match the operator this token belongs to ('" + operator
                    + "'): the audit record's actor is the token's operator; leave 'actor' out or send '"
                    + operator + "'");
        }
    }

    private static ControlBody noVersion(ControlBody b, String action) {
        if (b.version() != null) {
            throw new HttpError(400, "field 'version' is not allowed for " + action
                    + " (it acts on the scope's current state)");
        }
        return b;
    }

    private static ControlBody noFrom(ControlBody b, String action) {
        if (b.from() != null) {
            throw new HttpError(400, "field 'from' is only for rollback (the active version it rolls back from), not for "
                    + action);
        }
        return b;
    }

    /**
     * The {@code {scope}} path segment, percent-decoded here: the server routes on the raw path ({@link DashboardServer}),
     * so every scope name, with '/', '%', spaces or non-ASCII in it, arrives as the page's encodeURIComponent sent it.
     */
    private static String scope(HttpServerExchange ex) {
        String raw = pathParameter(ex, "scope");
        String s = raw == null ? null : PathSegment.decode(raw, "the scope");
        if (s == null || s.isBlank()) {
            throw new HttpError(400, "the scope in the path is empty");
        }
        return s;
    }

    /** {@code ?last=N}: the newest N versions, at most {@link HistoryViews#MAX_PER_READ}; absent: that many. */
    private static int last(HttpServerExchange ex) {
        Deque<String> d = ex.getQueryParameters().get("last");
        if (d == null || d.isEmpty()) {
            return HistoryViews.MAX_PER_READ;
        }
        int n;
        try {
            n = Integer.parseInt(d.peekFirst());
        } catch (NumberFormatException e) {
            n = 0;
        }
        if (n < 1 || n > HistoryViews.MAX_PER_READ) {
            throw new HttpError(400, "last must be an integer from 1 to " + HistoryViews.MAX_PER_READ
                    + " (the newest versions to show), got '" + abridged(ControlText.printable(d.peekFirst())) + "'");
        }
        return n;
    }

    private static long version(HttpServerExchange ex) {
        String v = PathSegment.decode(pathParameter(ex, "version"), "the version"); // as the scope: %31 is 1
        try {
            long n = Long.parseLong(v);
            if (n < 1) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new HttpError(400, "version must be an integer ≥ 1, got '" + abridged(ControlText.printable(v)) + "'");
        }
    }

    /**
     * A segment of the route's path template, as it came (undecoded). Read from the template match, never from the
     * query parameters: Undertow adds the path's values there after the client's own, so {@code ?scope=} would win.
     */
    private static String pathParameter(HttpServerExchange ex, String name) {
        PathTemplateMatch match = ex.getAttachment(PathTemplateMatch.ATTACHMENT_KEY);
        return match == null ? null : match.getParameters().get(name);
    }

    /**
     * 400 for a query parameter {@code route} does not read, so a mistyped or misplaced one ({@code ?scope=} beside the
     * path's scope, {@code ?lats=}) is said rather than ignored. Undertow lists the path's segments among the query
     * parameters: one value of those names is the path's own.
     */
    static void checkQuery(HttpServerExchange ex, DashboardRoute route) {
        // Undertow takes ";name=value" out of the path: read by no route, so refused like an unknown query parameter.
        if (!ex.getPathParameters().isEmpty()) {
            throw new HttpError(400, "path parameter ';" + abridged(ControlText.printable(
                    ex.getPathParameters().keySet().iterator().next())) + "' for " + route.method() + " "
                    + route.template() + ": the API takes none");
        }
        PathTemplateMatch match = ex.getAttachment(PathTemplateMatch.ATTACHMENT_KEY);
        Map<String, String> path = match == null ? Map.of() : match.getParameters();
        Set<String> allowed = route.queryParameters();
        for (Map.Entry<String, Deque<String>> e : ex.getQueryParameters().entrySet()) {
            String name = e.getKey();
            int fromClient = e.getValue().size() - (path.containsKey(name) ? 1 : 0);
            if (fromClient > 0 && !allowed.contains(name)) {
                throw new HttpError(400, "unknown query parameter '" + abridged(ControlText.printable(name)) + "' for "
                        + route.method() + " " + route.template() + (allowed.isEmpty() ? " (it takes none)"
                        : " (it takes " + String.join(", ", allowed) + ")"));
            }
            if (fromClient > 1) {
                throw new HttpError(400, "query parameter '" + name + "' given " + fromClient + " times; give it once");
            }
        }
    }

    private static String abridged(String name) {
        return name.length() <= 64 ? name : name.substring(0, 64) + "…";
    }

    /**
     * A 202, not a 503 ("nothing written, retry"): the write stands, or may. {@code written} is true, or null when the
     * broker did not confirm the commit; the rest is what a 200 carries, with the message that says not to repeat it.
     */
    private static Map<String, Object> unconfirmed(ControlUnconfirmedException e) {
        ControlWriter.Written w = e.write();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("written", e.written());
        m.put("confirmed", false);
        m.put("scope", w.scope());
        m.put("action", w.action());
        m.put("version", w.version());
        m.put("sequence", w.sequence());
        m.put("previousActive", w.previousActive());
        m.put("actor", w.actor());
        m.put("message", e.getMessage());
        return m;
    }

    /** Runs {@code h}; turns refusals and client errors into their status, anything else into a logged 500. */
    private static HttpHandler wrap(DashboardRoute route, HttpHandler h) {
        return ex -> {
            try {
                if (route.access() != DashboardRoute.Access.WRITE) { // a write checks its credentials first
                    checkQuery(ex, route);
                }
                h.handleRequest(ex);
            } catch (HttpError e) {
                JsonIo.error(ex, e.status, e.getMessage());
            } catch (ControlRefusedException e) {
                JsonIo.error(ex, e.status(), e.getMessage());
            } catch (ControlUnconfirmedException e) {
                log.warn("dashboard API: {} {}: {}", ex.getRequestMethod(), ex.getRequestPath(), e.getMessage());
                JsonIo.send(ex, 202, unconfirmed(e));
            } catch (IllegalStateException e) {
                log.warn("dashboard API: {} {} failed: {}", ex.getRequestMethod(), ex.getRequestPath(), e.getMessage());
                JsonIo.error(ex, 503, e.getMessage());
            } catch (RuntimeException e) {
                log.error("dashboard API: {} {} failed", ex.getRequestMethod(), ex.getRequestPath(), e);
                JsonIo.error(ex, 500, "internal error: " + e);
            }
        };
    }
}
