package io.tierroute.dashboards.web;

/**
 * Every route of the dashboard's HTTP server with the credential it needs. {@link ApiRoutes} registers
 * the API from this table (a switch over it must cover every constant, or it does not compile) and the
 * access tests walk {@link #values()}, so a new route cannot be left unchecked.
 */
public enum DashboardRoute {
    PAGE("GET", "/", Access.READ),
    VENDOR_SCRIPT("GET", "/vendor/uplot/uPlot.iife.min.js", Access.READ),
    HEALTHZ("GET", ReadGate.HEALTH_PATH, Access.PROBE),
    STATUS("GET", "/api/v1/status", Access.READ),
    VERSIONS("GET", "/api/v1/scopes/{scope}/versions", Access.READ),
    VERSION("GET", "/api/v1/scopes/{scope}/versions/{version}", Access.READ),
    TIMELINES("GET", "/api/v1/scopes/{scope}/timelines", Access.READ),
    RHO("GET", "/api/v1/scopes/{scope}/rho", Access.READ),
    CALIBRATION("GET", "/api/v1/scopes/{scope}/calibration", Access.READ),
    PIN("POST", "/api/v1/scopes/{scope}/pin", Access.WRITE),
    UNPIN("POST", "/api/v1/scopes/{scope}/unpin", Access.WRITE),
    ROLLBACK("POST", "/api/v1/scopes/{scope}/rollback", Access.WRITE);

    /** Which credential a route needs. */
    public enum Access {
        /** Always open (liveness). */
        PROBE,
        /** Open, or the read token (or the operator token) when the dashboard is closed to readers. */
        READ,
        /** The operator token, always (pin / unpin / rollback change what every selector serves). */
        WRITE
    }

    static final String API_PREFIX = "/api";

    private final String method;
    private final String template;
    private final Access access;

    DashboardRoute(String method, String template, Access access) {
        this.method = method;
        this.template = template;
        this.access = access;
    }

    public String method() { return method; }
    /** The path, with {@code {scope}} and {@code {version}} placeholders. */
    public String template() { return template; }
    public Access access() { return access; }

    /** The query parameters the route reads; any other is a 400 ({@code ApiRoutes.checkQuery}). */
    public java.util.Set<String> queryParameters() {
        return this == VERSIONS || this == TIMELINES ? java.util.Set.of("last") : java.util.Set.of();
    }

    /** The path for a scope (percent-encoded: a scope name may hold '/', '%', spaces) and version. */
    public String path(String scope, long version) {
        return template.replace("{scope}", PathSegment.encode(scope)).replace("{version}", Long.toString(version));
    }
}
