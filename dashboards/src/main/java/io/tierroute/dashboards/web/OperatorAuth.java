package io.tierroute.dashboards.web;

import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;

/**
 * The operator credential of the write endpoints (pin / unpin / rollback): no {@code Authorization}
 * header or a token no operator holds → 401, none configured → 403 (writes disabled). A good token
 * yields its operator's name, which the audit record carries as its actor. Compared as digests in
 * constant time, never logged or echoed.
 */
final class OperatorAuth {

    private final OperatorTokens operators;
    private final String tokenSource;

    /**
     * @param operators   who holds which token ({@link OperatorTokens#none()}: writes disabled)
     * @param tokenSource where the tokens come from (an environment variable name), for messages
     */
    OperatorAuth(OperatorTokens operators, String tokenSource) {
        this.operators = operators;
        this.tokenSource = tokenSource;
    }

    boolean enabled() {
        return operators.enabled();
    }

    /** Whether {@code presented} ({@link Secret#digestOf}) is some operator's token (false when none is configured). */
    boolean matches(byte[] presented) {
        return operators.identifyDigest(presented).isPresent();
    }

    /** The name of the operator whose bearer token the request carries; an {@link HttpError} otherwise. */
    String check(HttpServerExchange ex) {
        if (!operators.enabled()) {
            throw new HttpError(403, "pin / unpin / rollback are disabled: no operator token is configured (set "
                    + tokenSource + " or give an operator tokens file before starting the dashboard)");
        }
        String given = Credentials.bearer(Credentials.header(ex));
        if (given == null) {
            ex.getResponseHeaders().put(Headers.WWW_AUTHENTICATE, "Bearer realm=\"tierroute-operator\"");
            throw new HttpError(401, "this action needs the operator token: send 'Authorization: Bearer <token>'");
        }
        return operators.identify(given).orElseThrow(() -> {
            // 401 as the selector answers a wrong admin token (RFC 6750 §3.1): the credentials, not the rights.
            ex.getResponseHeaders().put(Headers.WWW_AUTHENTICATE, "Bearer realm=\"tierroute-operator\", error=\"invalid_token\"");
            return new HttpError(401, "the operator token is wrong");
        });
    }
}
