package io.tierroute.selector.server;

import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.config.SelectorConfig;
import io.tierroute.selector.config.ServerSettings;
import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.metrics.SelectorMetrics;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.scheduling.RouteRequest;
import io.tierroute.selector.scheduling.Selector;
import org.junit.jupiter.api.Test;

import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The API served for a selector its owner built and drives (the demo's): reads and admin as on the
 * standalone server, the data plane refused with 409 except a dry run, and a close that stops only the
 * listener.
 */
class EmbeddedSelectorApiTest {

    private static final String TOKEN = "embedded-test-token";
    private static final String WHY = "this selector routes a simulated fleet";
    private static final String ROUTE = "{\"text\": \"You are a helpful assistant.\", \"max_tokens\": 8}";

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** The owner's side: a selector on its own index writer and parameter store, as LiveFleet builds one. */
    private static Selector selector() {
        SelectorConfig c = ConfigLoader.parse("workers: [{name: a}, {name: b}]\n", Path.of("."));
        RunPrefixIndex index = RunPrefixIndex.builder().workers(2).build();
        return new Selector(c.selector(), index, new DirectIndexWriter(index), new ParameterStore(ParameterSet.defaults(2)),
                System::nanoTime);
    }

    private static EmbeddedSelectorApi serve(Selector s, String why) {
        return EmbeddedSelectorApi.start(s, s.indexWriter(), new SelectorMetrics(s, s.indexWriter(), false),
                new EmbeddedSelectorApi.Settings(ServerSettings.DEFAULTS.withPort(0), TOKEN, "THE_TOKEN_ENV",
                        () -> Map.of("scope", "default"), why));
    }

    private HttpResponse<String> send(EmbeddedSelectorApi api, String method, String path, String body, String... headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(api.uri().resolve(path)).timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void tlsSettingsAreRefusedRatherThanIgnored() {
        Selector s = selector();
        ServerSettings tls = ServerSettings.DEFAULTS.withPort(0).withTls(new io.tierroute.selector.config.TlsSettings(
                Path.of("keystore.p12"), "PKCS12", "SOME_ENV"));
        assertThatThrownBy(() -> EmbeddedSelectorApi.start(s, s.indexWriter(), new SelectorMetrics(s, s.indexWriter(), false),
                new EmbeddedSelectorApi.Settings(tls, TOKEN, "THE_TOKEN_ENV", null, WHY)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("plain HTTP only")
                .hasMessageContaining("keystore.p12");
    }

    @Test
    void readsAndAdminAsStandaloneTheDataPlaneRefusedButADryRun() throws Exception {
        Selector s = selector();
        try (EmbeddedSelectorApi api = serve(s, WHY)) {
            assertThat(api.uri().toString()).isEqualTo("http://127.0.0.1:" + api.port());
            assertThat(send(api, "GET", "/v1/workers", null).body()).contains("\"name\":\"a\"", "\"name\":\"b\"");
            assertThat(send(api, "GET", "/healthz", null).statusCode()).isEqualTo(200);
            HttpResponse<String> params = send(api, "GET", "/v1/params", null);
            assertThat(params.body()).contains("\"kafka\":{\"scope\":\"default\"}");
            assertThat(send(api, "GET", "/metrics", null).body()).contains("tierroute_routes_total{outcome=\"routed\"} 0.0");

            for (String path : new String[] {"/v1/route", "/v1/requests/events", "/v1/kv-events", "/v1/telemetry"}) {
                HttpResponse<String> r = send(api, "POST", path, "{}");
                assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(409);
                assertThat(r.headers().firstValue("content-type")).contains("application/json");
                assertThat(r.body()).as(path).startsWith("{\"error\":\"" + WHY).contains(path);
            }
            assertThat(send(api, "GET", "/v1/route", null).statusCode()).as("a wrong method is the API's 405").isEqualTo(405);
            HttpResponse<String> dry = send(api, "POST", "/v1/route?dry_run=true", ROUTE);
            assertThat(dry.statusCode()).as(dry.body()).isEqualTo(200);
            assertThat(dry.body()).containsPattern("\"worker\":\"[ab]\"");
            assertThat(s.routedCount()).as("a dry run admits nothing").isZero();
            assertThat(send(api, "GET", "/metrics", null).body()).contains("tierroute_http_responses_total{class=\"4xx\"} 5.0");

            assertThat(send(api, "POST", "/v1/workers/a/drain", null).statusCode()).isEqualTo(401);
            assertThat(send(api, "POST", "/v1/workers/a/drain", null, "Authorization", "Bearer wrong").statusCode())
                    .isEqualTo(401);
            assertThat(s.workers().get(0).draining()).isFalse();
            assertThat(send(api, "POST", "/v1/workers/a/drain", null, "Authorization", "Bearer " + TOKEN).statusCode())
                    .isEqualTo(200);
            assertThat(s.workers().get(0).draining()).isTrue();
            HttpResponse<String> reload = send(api, "POST", "/v1/params/reload", null, "Authorization", "Bearer " + TOKEN);
            assertThat(reload.statusCode()).as("the owner's store is the only source").isEqualTo(409);
        }
    }

    @Test
    void withoutAReasonTheDataPlaneIsServed() throws Exception {
        Selector s = selector();
        try (EmbeddedSelectorApi api = serve(s, null)) {
            HttpResponse<String> r = send(api, "POST", "/v1/route", ROUTE);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(s.routedCount()).isEqualTo(1);
        }
    }

    @Test
    void closeStopsTheListenerOnlyAndTheSettingsNeverShowTheToken() throws Exception {
        Selector s = selector();
        EmbeddedSelectorApi api = serve(s, WHY);
        api.close();
        api.close();
        assertThatThrownBy(() -> send(api, "GET", "/healthz", null)).isInstanceOf(ConnectException.class);
        assertThat(s.route(new RouteRequest("after-close", null, null, null, null, null, "x", null, 8, null, null, false))
                .join().worker()).as("the selector goes on with its owner").isIn("a", "b");
        assertThat(new EmbeddedSelectorApi.Settings(ServerSettings.DEFAULTS, TOKEN, "ENV", null, null).toString())
                .doesNotContain(TOKEN).contains("adminToken=set");
    }
}
