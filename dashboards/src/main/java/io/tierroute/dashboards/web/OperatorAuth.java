package io.tierroute.dashboards.web;

import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The operator token of the write endpoints (pin / unpin / rollback): no {@code Authorization}
 * header → 401, a wrong token → 403, no token configured → 403 (writes disabled). Compared in
 * constant time, never logged or echoed.
 */
final class OperatorAuth {

    private final byte[] expected; // "Bearer <token>", or null: writes disabled
    private final String tokenSource;

    /**
     * @param token       the operator token, or null / empty to refuse every write
     * @param tokenSource where the token comes from (an environment variable name), for messages
     */
    OperatorAuth(String token, String tokenSource) {
        this.expected = token == null || token.isEmpty() ? null : ("Bearer " + token).getBytes(StandardCharsets.UTF_8);
        this.tokenSource = tokenSource;
    }

    boolean enabled() {
        return expected != null;
    }

    void check(HttpServerExchange ex) {
        if (expected == null) {
            throw new HttpError(403, "pin / unpin / rollback are disabled: no operator token is configured (set "
                    + tokenSource + " before starting the dashboard)");
        }
        String given = ex.getRequestHeaders().getFirst(Headers.AUTHORIZATION);
        if (given == null || given.isBlank() || given.trim().equals("Bearer")) {
            ex.getResponseHeaders().put(Headers.WWW_AUTHENTICATE, "Bearer realm=\"tierroute-operator\"");
            throw new HttpError(401, "this action needs the operator token: send 'Authorization: Bearer <token>'");
        }
        if (!MessageDigest.isEqual(expected, given.trim().getBytes(StandardCharsets.UTF_8))) {
            throw new HttpError(403, "the operator token is wrong");
        }
    }
}
