package io.tierroute.selector.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.UnaryOperator;

/**
 * A bearer token read from an environment variable: the selector's admin, read and data tokens, and (through the CLI,
 * which depends on this module where the dashboard module may not) the dashboard's and the demo's operator tokens.
 * Surrounding whitespace is stripped, with one WARN that names the variable and never the value: a secret mounted from
 * a file or written with {@code echo} ends in a newline, and no client can send that back (an HTTP header value loses
 * its surrounding whitespace), so every admin call would fail "bearer token is wrong". A value that is empty once
 * stripped is no token: the caller treats it as it treats an unset variable, and the WARN says so.
 */
public final class TokenVariable {

    private static final Logger log = LoggerFactory.getLogger(TokenVariable.class);

    private TokenVariable() {
    }

    /** {@code raw} without surrounding whitespace; null when it is null, empty or whitespace only. Logs nothing. */
    public static String value(String raw) {
        if (raw == null) {
            return null;
        }
        String v = raw.strip();
        return v.isEmpty() ? null : v;
    }

    /**
     * The token in the environment variable {@code name} ({@code env} looks it up) as {@link #value} gives it, or null
     * when {@code name} is null or the variable holds no token; one WARN when the value had to be stripped or held only
     * whitespace. Call once per variable: each call that strips warns again.
     */
    public static String read(String name, UnaryOperator<String> env) {
        String raw = name == null ? null : env.apply(name);
        String v = value(raw);
        if (raw != null && !raw.isEmpty() && v == null) {
            log.warn("{} holds only whitespace: no token, treated as unset", name);
        } else if (v != null && v.length() != raw.length()) {
            log.warn("{} has whitespace around its token (e.g. a trailing newline from a mounted secret): stripped; "
                    + "send the token without it", name);
        }
        return v;
    }
}
