package io.tierroute.selector.http;

import io.tierroute.selector.config.AccessSettings;
import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.config.SelectorConfig;
import io.tierroute.selector.config.ServerSettings;
import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.metrics.SelectorMetrics;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.scheduling.Selector;
import io.undertow.Undertow;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The refusal runs after the API's access check: an unauthorised caller learns nothing from a 409. */
class DataPlaneRefusalTest {

    private static final String DATA_TOKEN = "data-plane-token";

    @Test
    void aClosedDataPlaneAsksForItsTokenBeforeRefusing() throws Exception {
        SelectorConfig c = ConfigLoader.parse("workers: [{name: a}]\n", Path.of("."));
        RunPrefixIndex index = RunPrefixIndex.builder().workers(1).build();
        Selector selector = new Selector(c.selector(), index, new DirectIndexWriter(index),
                new ParameterStore(ParameterSet.defaults(1)), System::nanoTime);
        SelectorMetrics metrics = new SelectorMetrics(selector, selector.indexWriter(), false);
        AccessSettings dataNeedsToken = new AccessSettings(AccessSettings.Mode.OPEN, "R", AccessSettings.Mode.TOKEN, "D");
        Credentials credentials = new Credentials("admin-token", null, DATA_TOKEN);
        ApiHandler api = new ApiHandler(selector, selector.indexWriter(), metrics, ServerSettings.DEFAULTS, dataNeedsToken,
                credentials, "A", null, null);
        Undertow server = Undertow.builder().addHttpListener(0, "127.0.0.1")
                .setHandler(new DataPlaneRefusal(api, metrics, "simulated", dataNeedsToken, credentials, "A")).build();
        server.start();
        try {
            int port = ((InetSocketAddress) server.getListenerInfo().get(0).getAddress()).getPort();
            URI base = URI.create("http://127.0.0.1:" + port);
            HttpClient http = HttpClient.newHttpClient();
            for (String path : new String[] {"/v1/route", "/v1/kv-events"}) {
                HttpResponse<String> anonymous = http.send(post(base, path).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(anonymous.statusCode()).as(path + ": " + anonymous.body()).isEqualTo(401);
                assertThat(anonymous.body()).contains("\"error\"").doesNotContain("simulated");
                assertThat(anonymous.headers().firstValue("WWW-Authenticate")).isPresent();
                HttpResponse<String> wrong = http.send(post(base, path).header("Authorization", "Bearer nope").build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(wrong.statusCode()).as(path + ": " + wrong.body()).isEqualTo(401);
                HttpResponse<String> authorised = http.send(post(base, path).header("Authorization", "Bearer " + DATA_TOKEN)
                        .build(), HttpResponse.BodyHandlers.ofString());
                assertThat(authorised.statusCode()).as(path + ": " + authorised.body()).isEqualTo(409);
                assertThat(authorised.body()).contains("simulated");
            }
        } finally {
            server.stop();
        }
    }

    private static HttpRequest.Builder post(URI base, String path) {
        return HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString("{}"));
    }
}
