package io.tierroute.dashboards.web;

import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;

/**
 * The operator token of the write endpoints (pin / unpin / rollback): no {@code Authorization}
 * header → 401, a wrong token → 403, no token configured → 403 (writes disabled). Compared as
 * digests in constant time, never logged or echoed.
 */
final class OperatorAuth {

    private final Secret expected; // null: writes disabled
    private final String tokenSource;

    /**
     * @param token       the operator token, or null / empty to refuse every write
     * @param tokenSource where the token comes from (an environment variable name), for messages
     */
    OperatorAuth(String token, String tokenSource) {
        this.expected = Secret.of(token);
        this.tokenSource = tokenSource;
    }

    boolean enabled() {
        return expected != null;
    }

    /** Whether {@code credential} is the operator token (false when none is configured). */
    boolean matches(String credential) {
        return expected != null && expected.matches(credential);
    }

    void check(HttpServerExchange ex) {
        if (expected == null) {
            throw new HttpError(403, "pin / unpin / rollback are disabled: no operator token is configured (set "
                    + tokenSource + " before starting the dashboard)");
        }
        String given = Credentials.bearer(ex.getRequestHeaders().getFirst(Headers.AUTHORIZATION));
        if (given == null) {
            ex.getResponseHeaders().put(Headers.WWW_AUTHENTICATE, "Bearer realm=\"tierroute-operator\"");
            throw new HttpError(401, "this action needs the operator token: send 'Authorization: Bearer <token>'");
        }
        if (!expected.matches(given)) {
            throw new HttpError(403, "the operator token is wrong");
        }
    }
}
