package io.tierroute.selector.server;

import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.config.SelectorConfig;
import io.tierroute.selector.config.ServerSettings;
import io.tierroute.selector.index.InterceptedIndex;
import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.index.PrefixIndex;
import io.tierroute.selector.ingest.KvEventPipeline;
import io.tierroute.selector.metrics.SelectorMetrics;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.scheduling.Selector;
import org.junit.jupiter.api.Test;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An index writer stopped for good by an error it cannot survive (a table growth past the heap) shows at every door:
 * /healthz answers 503 naming it, so an orchestrator restarts the selector; a KV post is a 503 that says why, not a
 * 500 per post; the gauge {@code tierroute_index_writer_stopped} is 1.
 */
class IndexWriterStoppedApiTest {

    private static final long FATAL_HASH = 777;

    @Test
    void aStoppedWriterFailsTheHealthCheckAndRefusesKvPostsSayingWhy() throws Exception {
        SelectorConfig c = ConfigLoader.parse("workers: [{name: a}, {name: b}]\n", Path.of("."));
        PrefixIndex index = InterceptedIndex.outOfMemoryOn(new NaiveReferenceIndex(2), FATAL_HASH);
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        try (KvEventPipeline pipeline = new KvEventPipeline(index, 100)) {
            Selector s = new Selector(c.selector(), index, pipeline, new ParameterStore(ParameterSet.defaults(2)),
                    System::nanoTime);
            try (EmbeddedSelectorApi api = EmbeddedSelectorApi.start(s, pipeline, new SelectorMetrics(s, pipeline, false),
                    new EmbeddedSelectorApi.Settings(ServerSettings.DEFAULTS.withPort(0), null, "UNUSED", null, null))) {
                java.util.function.BiFunction<String, String, HttpResponse<String>> call = (path, body) -> {
                    try {
                        HttpRequest.Builder b = HttpRequest.newBuilder(api.uri().resolve(path)).timeout(Duration.ofSeconds(10));
                        return client.send((body == null ? b.GET() : b.POST(HttpRequest.BodyPublishers.ofString(body))).build(),
                                HttpResponse.BodyHandlers.ofString());
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                };
                String stored = "{\"worker\":\"a\",\"events\":[{\"type\":\"stored\",\"tier\":\"hbm\",\"block_hashes\":[%d]}]}";
                assertThat(call.apply("/v1/kv-events", stored.formatted(1)).statusCode()).isEqualTo(202);
                assertThat(pipeline.awaitIdle(10, TimeUnit.SECONDS)).isTrue();
                assertThat(call.apply("/healthz", null).statusCode()).isEqualTo(200);
                assertThat(call.apply("/metrics", null).body()).contains("tierroute_index_writer_stopped 0.0");

                assertThat(call.apply("/v1/kv-events", stored.formatted(FATAL_HASH)).statusCode()).isEqualTo(202);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (pipeline.failure() == null && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                HttpResponse<String> health = call.apply("/healthz", null);
                assertThat(health.statusCode()).isEqualTo(503);
                assertThat(health.body()).contains("index writer has stopped").contains("OutOfMemoryError");
                HttpResponse<String> refused = call.apply("/v1/kv-events", stored.formatted(2));
                assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
                assertThat(refused.body()).contains("index writer has stopped").doesNotContain("internal error");
                assertThat(call.apply("/metrics", null).body()).contains("tierroute_index_writer_stopped 1.0");
                assertThat(call.apply("/v1/route?dry_run=true", "{\"text\":\"still answers\"}").statusCode())
                        .as("routes go on over what the index held").isEqualTo(200);
            }
        }
    }
}
