package io.tierroute.selector.config;

import java.util.Objects;

/**
 * Who may call which group of HTTP routes (the {@code access:} section). Admin routes always need
 * the admin token ({@code admin.tokenEnv}); the read views and the data plane are open by default and
 * can be closed behind a token of their own. The admin token opens every group.
 *
 * @param read         GET /v1/workers, /v1/params, /metrics: open to everyone, or a bearer token
 * @param readTokenEnv the environment variable that holds the read token
 * @param data         POST /v1/route, /v1/requests/events, /v1/kv-events, /v1/telemetry
 * @param dataTokenEnv the environment variable that holds the data-plane token
 */
public record AccessSettings(Mode read, String readTokenEnv, Mode data, String dataTokenEnv) {

    /** Open to everyone, or only with a bearer token. */
    public enum Mode { OPEN, TOKEN }

    public static final AccessSettings DEFAULTS =
            new AccessSettings(Mode.OPEN, "TIERROUTE_READ_TOKEN", Mode.OPEN, "TIERROUTE_DATA_TOKEN");

    public AccessSettings {
        Objects.requireNonNull(read, "read");
        Objects.requireNonNull(readTokenEnv, "readTokenEnv");
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(dataTokenEnv, "dataTokenEnv");
    }
}
