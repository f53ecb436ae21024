package io.tierroute.selector.metrics;

import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.scheduling.RouteRequest;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.scheduling.SelectorSettings;
import io.tierroute.selector.scheduling.WorkerSpec;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SelectorMetricsTest {

    private static String scrape(SelectorMetrics m) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        m.scrape(out);
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void everyFamilyIsExposedAndRegistriesAreSeparate() throws Exception {
        List<WorkerSpec> workers = List.of(WorkerSpec.of("a", 1000), WorkerSpec.of("b", 1000));
        RunPrefixIndex index = RunPrefixIndex.builder().workers(2).build();
        DirectIndexWriter writer = new DirectIndexWriter(index);
        Selector selector = new Selector(SelectorSettings.builder(workers).build(), index, writer,
                new ParameterStore(ParameterSet.builder(2).version(9).scope("pool").build()), System::nanoTime);
        SelectorMetrics m = new SelectorMetrics(selector, writer, false);
        SelectorMetrics other = new SelectorMetrics(selector, writer, false);
        assertThat(m.registry()).isNotSameAs(other.registry());

        selector.route(new RouteRequest("r1", null, null, null, null, null, "hello", null, 10, null, null, false)).join();
        m.route(SelectorMetrics.RouteOutcome.ROUTED, 150_000);
        for (SelectorMetrics.RouteOutcome refused : List.of(SelectorMetrics.RouteOutcome.INVALID,
                SelectorMetrics.RouteOutcome.CONFLICT, SelectorMetrics.RouteOutcome.ERROR,
                SelectorMetrics.RouteOutcome.DRY_RUN, SelectorMetrics.RouteOutcome.ABANDONED)) {
            m.route(refused, 10_000); // counted by outcome, not a route's latency
        }
        m.httpStatus(200);
        m.httpStatus(404);
        m.kvEventsRefused(3);
        String text = scrape(m);
        assertThat(text)
                .contains("tierroute_routes_total{outcome=\"routed\"} 1.0")
                .contains("tierroute_route_latency_seconds_bucket{le=\"2.5E-4\"} 1")
                .contains("tierroute_route_latency_seconds_count 1")
                .contains("tierroute_routes_total{outcome=\"invalid\"} 1.0")
                .contains("tierroute_routes_queued_total 0.0")
                .contains("tierroute_routes_overdue_total 0.0")
                .contains("tierroute_routes_spread_total 0.0")
                .contains("tierroute_drain_dry_runs_total 0.0")
                .contains("tierroute_routes_rejected_total 0.0")
                .contains("tierroute_routes_explored_total 0.0")
                .contains("tierroute_kv_events_applied_total 0.0")
                .contains("tierroute_kv_events_refused_total 3.0")
                .contains("tierroute_approximate_inserts_dropped_total 0.0")
                .contains("tierroute_index_blocks ")
                .contains("tierroute_worker_inflight_requests{worker=\"a\"}")
                .contains("tierroute_worker_waiting_requests{worker=\"b\"}")
                .contains("tierroute_inflight_requests 1.0")
                .contains("tierroute_params_active_version{scope=\"pool\"} 9.0")
                .contains("tierroute_http_responses_total{class=\"4xx\"} 1.0")
                .doesNotContain("jvm_");
        assertThat(scrape(other)).contains("tierroute_routes_total{outcome=\"routed\"} 0.0");
    }

    @Test
    void theJvmCollectorsAreRegisteredOncePerProcessHoweverManyMetricsAreBuilt() throws Exception {
        List<WorkerSpec> workers = List.of(WorkerSpec.of("a", 1000));
        RunPrefixIndex index = RunPrefixIndex.builder().workers(1).build();
        DirectIndexWriter writer = new DirectIndexWriter(index);
        Selector selector = new Selector(SelectorSettings.builder(workers).build(), index, writer,
                new ParameterStore(ParameterSet.defaults(1)), System::nanoTime);
        // Each registration of Prometheus' JVM collectors adds GC notification listeners that nothing removes.
        for (int i = 0; i < 20; i++) {
            SelectorMetrics m = new SelectorMetrics(selector, writer, true);
            assertThat(scrape(m)).contains("jvm_memory_used_bytes", "tierroute_routes_total");
        }
        assertThat(JvmCollectors.registrations()).isEqualTo(1);
        assertThat(scrape(new SelectorMetrics(selector, writer, false))).doesNotContain("jvm_");
    }
}
