package io.tierroute.selector.http;

import io.undertow.util.HttpString;
import io.undertow.util.Methods;

import java.util.HashMap;
import java.util.Map;

/**
 * The route table of the HTTP API: every route with its method and the credential it needs. The
 * dispatcher finds a request's route here before anything else, so a handler cannot exist without
 * an entry, and the access tests walk {@link #values()}: a new route is covered the day it is added.
 */
public enum Route {
    ROUTE(Methods.POST, "/v1/route", Access.DATA),
    REQUEST_EVENTS(Methods.POST, "/v1/requests/events", Access.DATA),
    KV_EVENTS(Methods.POST, "/v1/kv-events", Access.DATA),
    TELEMETRY(Methods.POST, "/v1/telemetry", Access.DATA),
    WORKERS(Methods.GET, "/v1/workers", Access.READ),
    PARAMS(Methods.GET, "/v1/params", Access.READ),
    PARAMS_RELOAD(Methods.POST, "/v1/params/reload", Access.ADMIN),
    WORKER_DRAIN(Methods.POST, "/v1/workers/{name}/drain", Access.ADMIN),
    WORKER_UNDRAIN(Methods.POST, "/v1/workers/{name}/undrain", Access.ADMIN),
    WORKER_HEALTH(Methods.POST, "/v1/workers/{name}/health", Access.ADMIN),
    METRICS(Methods.GET, "/metrics", Access.READ),
    HEALTHZ(Methods.GET, "/healthz", Access.PROBE);

    /** Which credential a route needs. */
    public enum Access {
        /** Always open: liveness probes must not need a secret. */
        PROBE,
        /** Read-only views: open, or the read token ({@code access.read}); the admin token also opens them. */
        READ,
        /** The data plane (routes, events, telemetry): open, or the data token ({@code access.data}); or admin. */
        DATA,
        /** Changes what the selector does (drain, health, parameter reload): the admin token, always. */
        ADMIN
    }

    static final String WORKERS_PREFIX = "/v1/workers/";
    private static final Map<String, Route> EXACT = new HashMap<>();

    static {
        for (Route r : values()) {
            if (!r.pattern.contains("{")) {
                EXACT.put(r.pattern, r);
            }
        }
    }

    private final HttpString method;
    private final String pattern;
    private final Access access;

    Route(HttpString method, String pattern, Access access) {
        this.method = method;
        this.pattern = pattern;
        this.access = access;
    }

    public HttpString method() { return method; }
    /** The path, with {@code {name}} where a worker name goes. */
    public String pattern() { return pattern; }
    public Access access() { return access; }

    /** The path with {@code worker} in place of {@code {name}}. */
    public String path(String worker) {
        return pattern.replace("{name}", worker);
    }

    /** The route of {@code path}, or null when there is none. */
    static Route match(String path) {
        Route r = EXACT.get(path);
        if (r != null || !path.startsWith(WORKERS_PREFIX)) {
            return r;
        }
        String rest = path.substring(WORKERS_PREFIX.length());
        int slash = rest.lastIndexOf('/');
        if (slash <= 0) {
            return null;
        }
        return switch (rest.substring(slash + 1)) {
            case "drain" -> WORKER_DRAIN;
            case "undrain" -> WORKER_UNDRAIN;
            case "health" -> WORKER_HEALTH;
            default -> null;
        };
    }

    /** The worker name in a {@code /v1/workers/{name}/...} path. */
    static String workerName(String path) {
        String rest = path.substring(WORKERS_PREFIX.length());
        return rest.substring(0, rest.lastIndexOf('/'));
    }
}
