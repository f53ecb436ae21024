package io.tierroute.selector.http;

import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Bearer-token check for the admin endpoints. Without a configured token every admin call is
 * refused (403); a missing or wrong token gets 401. The token is compared in constant time and
 * never logged or echoed.
 */
final class AdminAuth {

    private final byte[] expected; // "Bearer <token>", or null when admin is disabled
    private final String tokenEnv;

    AdminAuth(String token, String tokenEnv) {
        this.expected = token == null || token.isEmpty() ? null : ("Bearer " + token).getBytes(StandardCharsets.UTF_8);
        this.tokenEnv = tokenEnv;
    }

    /** Throws the right {@link ApiError} unless the exchange carries the admin token. */
    void check(HttpServerExchange ex) {
        if (expected == null) {
            throw new ApiError(403, "admin endpoints are disabled: no admin token is configured (set the environment variable "
                    + (tokenEnv == null ? "named by admin.tokenEnv" : tokenEnv) + " before starting the selector)");
        }
        String given = ex.getRequestHeaders().getFirst(Headers.AUTHORIZATION);
        if (given == null) {
            ex.getResponseHeaders().put(Headers.WWW_AUTHENTICATE, "Bearer realm=\"tierroute-admin\"");
            throw new ApiError(401, "admin endpoint: send the admin token as 'Authorization: Bearer <token>'");
        }
        if (!MessageDigest.isEqual(expected, given.trim().getBytes(StandardCharsets.UTF_8))) {
            ex.getResponseHeaders().put(Headers.WWW_AUTHENTICATE, "Bearer realm=\"tierroute-admin\", error=\"invalid_token\"");
            throw new ApiError(401, "admin endpoint: the bearer token is wrong");
        }
    }
}
