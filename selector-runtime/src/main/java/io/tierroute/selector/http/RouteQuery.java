package io.tierroute.selector.http;

import io.undertow.server.HttpServerExchange;

import java.util.Deque;
import java.util.Locale;
import java.util.Map;

/**
 * The query of {@code POST /v1/route}: at most {@code dry_run}, whose value says yes ({@code true}, {@code 1}, or the
 * bare flag) or no ({@code false}, {@code 0}). Anything else is the client's mistake and answered 400: read leniently,
 * a typo ({@code ?dryrun=true}, {@code ?dry_run=yes}) would admit a real request where the client asked for a preview,
 * and the answer looks the same.
 */
final class RouteQuery {

    static final String DRY_RUN = "dry_run";

    private RouteQuery() {
    }

    /** Whether the route is a dry run; {@link ApiError} 400 naming the problem when the query is not one of ours. */
    static boolean dryRun(HttpServerExchange ex) {
        refusePathParameters(ex);
        Map<String, Deque<String>> q = ex.getQueryParameters();
        for (Map.Entry<String, Deque<String>> p : q.entrySet()) {
            if (!isNothing(p) && !p.getKey().equals(DRY_RUN)) {
                throw new ApiError(400, "unknown query parameter " + named(p) + " on POST /v1/route; the only one is "
                        + "dry_run (true or false)");
            }
        }
        Deque<String> v = q.get(DRY_RUN);
        if (v == null || v.isEmpty()) {
            return false;
        }
        if (v.size() > 1) {
            throw new ApiError(400, "dry_run is given " + v.size() + " times; give it once (true or false)");
        }
        return switch (v.peekFirst().toLowerCase(Locale.ROOT)) {
            case "", "true", "1" -> true;
            case "false", "0" -> false;
            default -> throw new ApiError(400, "dry_run must be true or false, got '" + v.peekFirst() + "'");
        };
    }

    /**
     * The other POST endpoints take no query: {@code POST /v1/workers/w2/drain?dry_run=true} would otherwise drain w2
     * while the client asked for a preview, so any parameter is a 400 naming it. GET endpoints read none and ignore
     * what they are sent (a cache-busting {@code ?_=123} must not fail a probe).
     */
    static void refuseAny(HttpServerExchange ex) {
        refusePathParameters(ex);
        for (Map.Entry<String, Deque<String>> p : ex.getQueryParameters().entrySet()) {
            if (!isNothing(p)) {
                throw new ApiError(400, "unknown query parameter " + named(p) + " on " + ex.getRequestMethod() + " "
                        + ex.getRelativePath() + ": it takes none" + (p.getKey().equals(DRY_RUN)
                        ? " (dry_run is for POST /v1/route only; nothing was done)" : " (nothing was done)"));
            }
        }
    }

    /**
     * An empty name with no value: the gap of {@code ?&dry_run} or {@code ?&}, no parameter at all. {@code ?=true} has
     * an empty name too, but a value: a parameter, and not one of ours.
     */
    private static boolean isNothing(Map.Entry<String, Deque<String>> p) {
        return p.getKey().isEmpty() && p.getValue().stream().allMatch(String::isEmpty);
    }

    private static String named(Map.Entry<String, Deque<String>> p) {
        return p.getKey().isEmpty() ? "without a name ('=" + ApiError.clip(p.getValue().stream()
                .filter(v -> !v.isEmpty()).findFirst().orElse("")) + "')"
                : "'" + ApiError.clip(p.getKey()) + "'";
    }

    /**
     * Undertow takes {@code ;name=value} out of the path into path parameters, so {@code /v1/workers/w2/drain;dry_run=true}
     * would match the drain and pass the query checks: a POST refuses them as it refuses a query.
     */
    private static void refusePathParameters(HttpServerExchange ex) {
        if (!ex.getPathParameters().isEmpty()) {
            throw new ApiError(400, "path parameter ';" + ex.getPathParameters().keySet().iterator().next() + "' on "
                    + ex.getRequestMethod() + " " + ex.getRelativePath() + ": POST endpoints take none (nothing was done)");
        }
    }

    /** True unless the query is a well-formed "not a dry run": what a refusal of real routes must let through. */
    static boolean dryRunOrMalformed(HttpServerExchange ex) {
        try {
            return dryRun(ex);
        } catch (ApiError e) {
            return true;
        }
    }
}
