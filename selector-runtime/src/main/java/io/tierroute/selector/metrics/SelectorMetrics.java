package io.tierroute.selector.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import io.tierroute.selector.ingest.IndexWriter;
import io.tierroute.selector.ingest.KvEventPipeline;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.sequences.LoadView;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The selector's Prometheus metrics, registered in a registry of their own (never the global
 * default), so several servers can live in one JVM. Counters the selector and the index writer
 * already keep are read through callbacks at scrape time; the HTTP layer records outcomes, latency
 * and status classes on pre-resolved data points, so a route pays a few atomic adds.
 */
public final class SelectorMetrics {

    /**
     * How a route call ended, as the {@code outcome} label spells it. {@code DRY_RUN}: a {@code ?dry_run=true}
     * call, whatever its answer; it admitted nothing, so it is neither a route nor in the latency histogram.
     */
    public enum RouteOutcome {
        ROUTED("routed"), INVALID("invalid"), CONFLICT("conflict"), NO_CAPACITY("no_capacity"), ERROR("error"),
        DRY_RUN("dry_run"),
        /** The client hung up while its route waited in the admission queue; the route was withdrawn. */
        ABANDONED("abandoned");

        final String label;

        RouteOutcome(String label) {
            this.label = label;
        }
    }

    private static final String[] STATUS_CLASSES = {"1xx", "2xx", "3xx", "4xx", "5xx"};

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
    private final CounterDataPoint[] routes = new CounterDataPoint[RouteOutcome.values().length];
    private final DistributionDataPoint routeLatency;
    private final CounterDataPoint[] http = new CounterDataPoint[STATUS_CLASSES.length];
    private final CounterDataPoint kvRefused;
    private final CounterDataPoint kvReceived;
    private final CounterDataPoint telemetrySkipped;
    private final CounterDataPoint kvBatchesSkipped;
    private final CounterDataPoint kvResyncsAfterGap;
    private final CounterDataPoint kvResyncsAfterRestart;
    private final CounterDataPoint kvResyncsAfterLostBatch;
    private volatile Supplier<Map<String, Long>> otherScopes;
    private final PrometheusRegistry jvm; // the process's JVM collectors (shared), or null

    /**
     * @param jvm add the JVM's collectors to the scrape ({@link JvmCollectors}: registered once per process,
     *            shared by every instance, so building many of these leaks nothing)
     */
    public SelectorMetrics(Selector selector, IndexWriter indexWriter, boolean jvm) {
        Counter routeCounter = Counter.builder().name("tierroute_routes_total")
                .help("Route requests by outcome (routed, invalid, conflict, no_capacity, error; dry_run: "
                        + "?dry_run=true calls, which admit nothing; abandoned: the client hung up while its route waited)")
                .labelNames("outcome").register(registry);
        for (RouteOutcome o : RouteOutcome.values()) {
            routes[o.ordinal()] = routeCounter.labelValues(o.label);
        }
        routeLatency = Histogram.builder().name("tierroute_route_latency_seconds")
                .help("Time from the route request's arrival to its answer, queue wait included, of the routes the "
                        + "selector decided (routed, no_capacity); refusals (invalid, conflict), errors, dry runs and "
                        + "abandoned routes excluded")
                .unit(Unit.SECONDS).classicOnly()
                .classicUpperBounds(25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3,
                        50e-3, 100e-3, 250e-3, 500e-3, 1, 2.5, 5, 10, 30)
                .register(registry);
        Counter httpCounter = Counter.builder().name("tierroute_http_responses_total")
                .help("HTTP responses by status class").labelNames("class").register(registry);
        for (int i = 0; i < STATUS_CLASSES.length; i++) {
            http[i] = httpCounter.labelValues(STATUS_CLASSES[i]);
        }
        kvRefused = Counter.builder().name("tierroute_kv_events_refused_total")
                .help("KV events refused with 503 because the index writer queue was full").register(registry);
        kvReceived = Counter.builder().name("tierroute_kv_events_received_total")
                .help("KV events accepted over HTTP and queued for the index writer").register(registry);
        telemetrySkipped = Counter.builder().name("tierroute_telemetry_samples_skipped_total")
                .help("Telemetry samples not applied because their sequence was not above the worker's last applied "
                        + "one (a sender's retry, or a sample overtaken by a later one)").register(registry);
        kvBatchesSkipped = Counter.builder().name("tierroute_kv_events_batches_skipped_total")
                .help("KV-event batches posted over HTTP and not applied because their sequence was not above the "
                        + "worker's last (a retry of a batch applied, or one overtaken by a later one)").register(registry);
        Counter kvResyncs = Counter.builder().name("tierroute_kv_events_resyncs_total")
                .help("Workers whose index entries were cleared because a KV-event batch posted over HTTP skipped "
                        + "sequence numbers (gap), went back to 0 (restart) or was refused as malformed (lost_batch)")
                .labelNames("reason").register(registry);
        kvResyncsAfterGap = kvResyncs.labelValues("gap");
        kvResyncsAfterRestart = kvResyncs.labelValues("restart");
        kvResyncsAfterLostBatch = kvResyncs.labelValues("lost_batch");

        counter("tierroute_routes_queued_total", "Routes that waited in the admission queue", selector::queuedCount);
        counter("tierroute_routes_spread_total", "Routes the light-load spread (routing.spreadWithin) sent away from the "
                + "cheapest worker, which had more requests in flight", selector::spreadCount);
        counter("tierroute_routes_overdue_total", "Queued routes placed before the cost order because they had waited "
                + "routing.queueOverdueAfter (a steady rise: the fleet is overloaded)", selector::overduePlacedCount);
        counter("tierroute_drain_dry_runs_total", "Dry runs the admission-queue drains made to choose which waiting "
                + "request to place (the overdue check and the re-ranking): their work under the drain lock",
                selector::drainDryRunCount);
        counter("tierroute_routes_rejected_total", "Routes the selector rejected for lack of capacity (no "
                + "worker taking requests, the admission queue full or waited out, or a prompt no worker's KV cache holds)",
                selector::rejectedCount);
        counter("tierroute_requests_expired_total", "Requests in flight dropped from their worker's load after no "
                + "event for routing.requestMaxAge (a finished or failed event that never came)", selector::expiredRequestCount);
        counter("tierroute_routes_explored_total", "Routes whose pick was not the argmin (softmax or epsilon)",
                selector::exploredCount);
        counter("tierroute_kv_events_applied_total", "KV events applied to the prefix index", indexWriter::appliedEvents);
        counter("tierroute_kv_events_unpriced_tier_total", "KV events (HTTP and Kafka) that put blocks on a tier the "
                + "worker's configuration gives no bandwidth: indexed, never counted as hits (the first per worker and tier "
                + "is logged)", () -> selector.unpricedTiers().total());
        if (indexWriter instanceof KvEventPipeline p) {
            counter("tierroute_kv_events_failed_total", "KV events that failed to apply (the first of a batch logged)",
                    p::failedEvents);
            gauge("tierroute_index_writer_backlog", "Commands waiting for the index writer", p::backlog);
            gauge("tierroute_index_writer_stopped", "1 once the index writer has stopped for good on an error it "
                    + "could not survive (logged; /healthz answers 503): the index takes no more KV events",
                    () -> p.failure() == null ? 0 : 1);
        }
        counter("tierroute_approximate_inserts_dropped_total",
                "Approximate index inserts (approximate mode, computing claims) and claim releases dropped because the writer "
                        + "was full",
                indexWriter::droppedRouted);
        gauge("tierroute_index_blocks", "Blocks in the prefix index", () -> selector.index().blockCount());
        gauge("tierroute_admission_queue_length", "Requests waiting in the admission queue", selector::queueLength);
        gauge("tierroute_inflight_requests", "Requests in flight across all workers", () -> selector.inflight().size());
        // C_harm's two fleet averages (CostModel): what κ = harmWeight·(0.5 + 2·D̄) and an idle worker's λ_w·T_pf read
        GaugeWithCallback.builder().name("tierroute_fleet_prefill_duty")
                .help("D̄: share of healthy workers with a request waiting for its first token, EWMA over routes")
                .callback(cb -> cb.call(selector.prefillDuty())).register(registry);
        GaugeWithCallback.builder().name("tierroute_fleet_arrival_rate_per_worker")
                .help("λ_w: requests arriving per second per healthy worker, EWMA over routes (0 while unknown)")
                .callback(cb -> cb.call(selector.arrivalRatePerWorker())).register(registry);

        List<String> names = selector.registry().names();
        GaugeWithCallback.builder().name("tierroute_worker_inflight_requests")
                .help("Requests in flight per worker").labelNames("worker")
                .callback(cb -> {
                    for (int w = 0; w < names.size(); w++) {
                        cb.call(selector.inflight().view(w).inFlight(), names.get(w));
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("tierroute_worker_waiting_requests")
                .help("Requests waiting for their first token per worker (Q)").labelNames("worker")
                .callback(cb -> {
                    for (int w = 0; w < names.size(); w++) {
                        LoadView v = selector.inflight().view(w);
                        cb.call(v.waiting(), names.get(w));
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("tierroute_params_active_version")
                .help("Version of the active parameter snapshot per scope").labelNames("scope")
                .callback(cb -> {
                    ParameterSet ps = selector.parameters().current();
                    cb.call(ps.version(), ps.scope());
                    Supplier<Map<String, Long>> others = otherScopes;
                    if (others != null) { // scopes this selector does not serve: the version active there
                        others.get().forEach((scope, version) -> {
                            if (!scope.equals(ps.scope())) {
                                cb.call(version, scope);
                            }
                        });
                    }
                }).register(registry);
        gauge("tierroute_params_rho_aged_out_links", "Links whose rho the served parameters count as 0: measured longer "
                + "ago than kafka.params.rhoMaxAge, with no newer snapshot applied",
                () -> selector.parameters().current().rhoAgedOutLinks());
        this.jvm = jvm ? JvmCollectors.registry() : null;
    }

    private void counter(String name, String help, LongSupplier value) {
        CounterWithCallback.builder().name(name).help(help).callback(cb -> cb.call(value.getAsLong())).register(registry);
    }

    private void gauge(String name, String help, LongSupplier value) {
        GaugeWithCallback.builder().name(name).help(help).callback(cb -> cb.call(value.getAsLong())).register(registry);
    }

    /** This instance's own registry (the JVM's collectors live in {@link JvmCollectors}'). */
    public PrometheusRegistry registry() { return registry; }

    /**
     * Adds the active versions of scopes other than the served one (the Kafka loader sees every
     * scope on the params topic) to {@code tierroute_params_active_version}.
     */
    public void otherScopes(Supplier<Map<String, Long>> versions) {
        this.otherScopes = versions;
    }

    /** One route call ended with {@code outcome} after {@code nanos}. */
    public void route(RouteOutcome outcome, long nanos) {
        routes[outcome.ordinal()].inc();
        // Only decisions: a refusal of a bad or duplicate request is answered in microseconds and would pull the route
        // latency's quantiles down (7 samples for 2 routes in an operator's check), a what-if is not a route, and an
        // abandoned route got no answer.
        if (outcome == RouteOutcome.ROUTED || outcome == RouteOutcome.NO_CAPACITY) {
            routeLatency.observe(nanos / 1e9);
        }
    }

    public void httpStatus(int status) {
        int c = status / 100 - 1;
        if (c >= 0 && c < http.length) {
            http[c].inc();
        }
    }

    public void kvEventsReceived(int n) { kvReceived.inc(n); }

    public void kvEventsRefused(int n) { kvRefused.inc(n); }

    /** A telemetry sample not applied: its sequence was not above the worker's last applied one. */
    public void telemetrySkipped() { telemetrySkipped.inc(); }

    /** A KV-event batch posted over HTTP was not applied: its sequence was not above the worker's last. */
    public void kvBatchSkipped() { kvBatchesSkipped.inc(); }

    /** A worker's index entries were cleared in front of a posted batch: the engine restarted, or batches were lost. */
    public void kvBatchResync(boolean restart) {
        (restart ? kvResyncsAfterRestart : kvResyncsAfterGap).inc();
    }

    /** A numbered KV-event batch posted over HTTP was refused (malformed, too large): its worker is cleared. */
    public void kvBatchLost() { kvResyncsAfterLostBatch.inc(); }

    public String contentType() { return writer.getContentType(); }

    /** Writes every metric in the Prometheus text format, the JVM's too when asked for. */
    public void scrape(OutputStream out) throws IOException {
        MetricSnapshots own = registry.scrape();
        if (jvm == null) {
            writer.write(out, own);
            return;
        }
        MetricSnapshots.Builder all = MetricSnapshots.builder();
        for (MetricSnapshot s : own) {
            all.metricSnapshot(s);
        }
        for (MetricSnapshot s : jvm.scrape()) {
            all.metricSnapshot(s);
        }
        writer.write(out, all.build());
    }
}
