package io.tierroute.cli;

import io.tierroute.selector.config.ServerSettings;
import io.tierroute.selector.kafka.ParameterLoader;
import io.tierroute.selector.server.EmbeddedSelectorApi;
import io.tierroute.sim.live.LiveFleet;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The demo's selector on HTTP: selector-runtime's API ({@link EmbeddedSelectorApi}) for the selector the
 * live fleet routes with, on 127.0.0.1. Reads ({@code /metrics}, {@code /v1/workers}, {@code /v1/params},
 * {@code /healthz}) and the admin calls (drain, undrain, health; behind the demo's operator token) work as
 * on {@code tierroute selector}; the data-plane POSTs get 409, except {@code POST /v1/route?dry_run=true}:
 * the fleet is simulated, so a request routed from outside would never be served.
 */
final class DemoSelectorApi {

    /** Why the data plane is closed, as its 409s say. */
    static final String DATA_PLANE_CLOSED = "this selector routes the demo's simulated fleet";

    private DemoSelectorApi() {
    }

    /** Serves {@code fleet}'s selector on 127.0.0.1:{@code port} (0: any free port). */
    static EmbeddedSelectorApi start(LiveFleet fleet, ParameterLoader loader, String bootstrap, int port, String token,
                                     String tokenEnv) {
        // One I/O and a few worker threads: an operator's curl and a Prometheus scrape, not production traffic.
        ServerSettings server = new ServerSettings("127.0.0.1", port, 4 * 1024 * 1024, 1, 4);
        return EmbeddedSelectorApi.start(fleet.selector(), fleet.indexWriter(), fleet.metrics(),
                new EmbeddedSelectorApi.Settings(server, token, tokenEnv, () -> kafkaStatus(loader, bootstrap),
                        DATA_PLANE_CLOSED));
    }

    /**
     * The {@code kafka} block of {@code GET /v1/params}: where the parameters come from (a reload from a
     * file is refused: pin or roll back on the dashboard or with {@code tierroute snapshots}).
     */
    private static Map<String, Object> kafkaStatus(ParameterLoader loader, String bootstrap) {
        ParameterLoader.Status st = loader.status();
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("ready", st.ready());
        params.put("applied_version", st.appliedVersion());
        params.put("swaps", loader.swaps());
        params.put("bad_records", loader.badRecords());
        params.put("last_error", st.lastError());
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("bootstrap_servers", bootstrap);
        m.put("scope", loader.scope());
        m.put("params", params);
        return m;
    }
}
