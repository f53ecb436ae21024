package io.tierroute.selector.http;

import io.tierroute.selector.config.AccessSettings;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;

/**
 * Decides whether a request may use its {@link Route}: probes are open; reads and the data plane are
 * open or need their token (or the admin token) as configured; admin routes need the admin token, and
 * are refused outright (403) when none is configured. A missing or wrong token is 401 with a
 * {@code WWW-Authenticate} challenge. Tokens are never logged or echoed: errors name the environment
 * variable, never its value.
 */
final class AccessControl {

    private final BearerToken admin;
    private final BearerToken read;
    private final BearerToken data;
    private final boolean readOpen;
    private final boolean dataOpen;
    private final String adminEnv;
    private final AccessSettings settings;

    AccessControl(AccessSettings settings, Credentials credentials, String adminEnv) {
        this.settings = settings;
        this.admin = BearerToken.of(credentials.admin());
        this.read = BearerToken.of(credentials.read());
        this.data = BearerToken.of(credentials.data());
        this.readOpen = settings.read() == AccessSettings.Mode.OPEN;
        this.dataOpen = settings.data() == AccessSettings.Mode.OPEN;
        this.adminEnv = adminEnv == null ? "named by admin.tokenEnv" : adminEnv;
    }

    /** Throws the right {@link ApiError} unless {@code ex} may use {@code route}. */
    void check(HttpServerExchange ex, Route route) {
        switch (route.access()) {
            case PROBE -> { }
            case READ -> {
                if (!readOpen) {
                    require(ex, read, "read", "access.read: token", settings.readTokenEnv());
                }
            }
            case DATA -> {
                if (!dataOpen) {
                    require(ex, data, "data-plane", "access.data: token", settings.dataTokenEnv());
                }
            }
            case ADMIN -> requireAdmin(ex);
        }
    }

    private void requireAdmin(HttpServerExchange ex) {
        if (admin == null) {
            throw new ApiError(403, "admin endpoints are disabled: no admin token is configured (set the environment "
                    + "variable " + adminEnv + " before starting the selector)");
        }
        String c = credential(ex, "admin endpoint: send the admin token as 'Authorization: Bearer <token>'");
        if (!admin.matches(c)) {
            throw wrong(ex, "admin endpoint: the bearer token is wrong");
        }
    }

    /** A closed group: its own token or the admin token. */
    private void require(HttpServerExchange ex, BearerToken own, String what, String setting, String env) {
        if (own == null && admin == null) {
            throw new ApiError(403, "the " + what + " routes are closed (" + setting + ") and no token is configured "
                    + "(set the environment variable " + env + " or " + adminEnv + " before starting the selector)");
        }
        String c = credential(ex, "this " + what + " route is closed (" + setting + "): send the " + what
                + " token or the admin token as 'Authorization: Bearer <token>'");
        // Both comparisons always run, so the time does not say which token (if any) was close.
        boolean ok = own != null && own.matches(c);
        ok |= admin != null && admin.matches(c);
        if (!ok) {
            throw wrong(ex, "this " + what + " route is closed (" + setting + "): the bearer token is wrong");
        }
    }

    private static String credential(HttpServerExchange ex, String message) {
        var given = ex.getRequestHeaders().get(Headers.AUTHORIZATION);
        if (given != null && given.size() > 1) { // which one counts would be ours to guess (RFC 9110: one field)
            throw new ApiError(400, "the Authorization header is given " + given.size() + " times; give it once");
        }
        String raw = ex.getRequestHeaders().getFirst(Headers.AUTHORIZATION);
        // Read as UTF-8, as the token in the environment is: a non-ASCII token would otherwise never match.
        String c = BearerToken.credential(raw == null ? null : HeaderText.utf8(Headers.AUTHORIZATION, raw));
        if (c == null) {
            ex.getResponseHeaders().put(Headers.WWW_AUTHENTICATE, "Bearer realm=\"tierroute\"");
            throw new ApiError(401, message);
        }
        return c;
    }

    private static ApiError wrong(HttpServerExchange ex, String message) {
        ex.getResponseHeaders().put(Headers.WWW_AUTHENTICATE, "Bearer realm=\"tierroute\", error=\"invalid_token\"");
        return new ApiError(401, message);
    }
}
