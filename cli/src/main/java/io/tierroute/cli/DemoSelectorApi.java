package io.tierroute.cli;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.tierroute.selector.config.ServerSettings;
import io.tierroute.selector.kafka.DecisionPublisher;
import io.tierroute.selector.kafka.KafkaPartsReport;
import io.tierroute.selector.kafka.ParameterLoader;
import io.tierroute.selector.server.EmbeddedSelectorApi;
import io.tierroute.sim.live.FleetPublisher;
import io.tierroute.sim.live.LiveFleet;

/**
 * The demo's selector on HTTP: selector-runtime's API ({@link EmbeddedSelectorApi}) for the selector the
 * live fleet routes with, on 127.0.0.1. Reads ({@code /metrics}, {@code /v1/workers}, {@code /v1/params},
 * {@code /healthz}) and the admin calls (drain, undrain, health; behind the demo's operator token) work as
 * on {@code tierroute selector}, the Kafka parts' metrics and {@code kafka} block included; the data-plane
 * POSTs get 409, except {@code POST /v1/route?dry_run=true}: the fleet is simulated, so a request routed
 * from outside would never be served.
 */
final class DemoSelectorApi {

    /** Why the data plane is closed, as its 409s say. */
    static final String DATA_PLANE_CLOSED = "this selector routes a simulated fleet (tierroute demo or fleet)";

    private DemoSelectorApi() {
    }

    /**
     * Serves {@code fleet}'s selector on 127.0.0.1:{@code port} (0: any free port), with the started
     * {@code loader} and {@code decisions} (the fleet's decision sink) reported as {@code tierroute selector}
     * reports its own, and the fleet's {@code publisher} ({@link #registerFleetRecords}). Call once per fleet: the
     * metrics go on the fleet's registry.
     */
    static EmbeddedSelectorApi start(LiveFleet fleet, ParameterLoader loader, DecisionPublisher decisions,
                                     FleetPublisher publisher, String bootstrap, int port, String token, String tokenEnv) {
        // The demo reads no KV events from Kafka (the fleet applies its own), hence no KV consumer.
        KafkaPartsReport kafka = new KafkaPartsReport(bootstrap, loader.scope(), fleet.selector(), loader, null,
                decisions);
        kafka.register(fleet.metrics());
        registerFleetRecords(fleet.metrics().registry(), publisher);
        // One I/O and a few worker threads: an operator's curl and a Prometheus scrape, not production traffic.
        ServerSettings server = new ServerSettings("127.0.0.1", port, 4 * 1024 * 1024, 1, 4);
        return EmbeddedSelectorApi.start(fleet.selector(), fleet.indexWriter(), fleet.metrics(),
                new EmbeddedSelectorApi.Settings(server, token, tokenEnv, kafka::status, DATA_PLANE_CLOSED,
                        kafka::stopped)); // a stopped loader or publisher fails /healthz, as on `tierroute selector`
    }

    /**
     * The fleet's records on {@code /metrics}, as the decisions' are ({@code tierroute_decisions_*}):
     * {@code tierroute_fleet_records_sent_total} and {@code tierroute_fleet_records_acknowledged_total} by kind
     * (telemetry, kv_batch, completion), {@code tierroute_fleet_records_failed_total}.
     */
    static void registerFleetRecords(PrometheusRegistry r, FleetPublisher p) {
        CounterWithCallback.builder().name("tierroute_fleet_records_sent_total")
                .help("Records the simulated fleet handed to its Kafka producer, by kind").labelNames("kind")
                .callback(cb -> {
                    cb.call(p.telemetrySent(), "telemetry");
                    cb.call(p.kvBatchesSent(), "kv_batch");
                    cb.call(p.completionsSent(), "completion");
                }).register(r);
        CounterWithCallback.builder().name("tierroute_fleet_records_acknowledged_total")
                .help("Records of the simulated fleet the broker acknowledged, by kind").labelNames("kind")
                .callback(cb -> {
                    cb.call(p.telemetryAcknowledged(), "telemetry");
                    cb.call(p.kvBatchesAcknowledged(), "kv_batch");
                    cb.call(p.completionsAcknowledged(), "completion");
                }).register(r);
        CounterWithCallback.builder().name("tierroute_fleet_records_failed_total")
                .help("Records of the simulated fleet whose send failed (refused, or timed out in a Kafka outage)")
                .callback(cb -> cb.call(p.sendFailures())).register(r);
    }
}
