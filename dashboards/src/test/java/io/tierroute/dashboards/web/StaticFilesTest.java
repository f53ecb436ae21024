package io.tierroute.dashboards.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.dashboards.Dashboard;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * The page and its files follow the API's rules: GET and HEAD only (a JSON 405 with {@code Allow: GET, HEAD}
 * otherwise), a directory is a JSON 404. Before, a POST got the page, a PUT a 405 advertising POST, a PATCH a bare
 * 501 and {@code /vendor/uplot/} a bare 403.
 */
class StaticFilesTest {

    @Test
    void thePageAndItsFilesAnswerGetAndHeadOnlyAndADirectoryIsNotFound() throws Exception {
        String bootstrap;
        try (ServerSocket s = new ServerSocket(0)) {
            bootstrap = "127.0.0.1:" + s.getLocalPort(); // nothing listens there: the history is not asked
        }
        try (Dashboard d = Dashboard.start(new Dashboard.Settings(bootstrap, "127.0.0.1", 0, "t0ken-t0ken-t0ken",
                "TEST_TOKEN", "default"))) {
            HttpClient http = HttpClient.newHttpClient();
            for (String path : new String[] {"", "dashboard.js", "vendor/uplot/uPlot.iife.min.js"}) {
                assertThat(send(http, d.uri(), path, "GET").statusCode()).as(path).isEqualTo(200);
                assertThat(send(http, d.uri(), path, "HEAD").statusCode()).as(path).isEqualTo(200);
                for (String method : new String[] {"POST", "PUT", "DELETE", "PATCH", "OPTIONS"}) {
                    HttpResponse<String> r = send(http, d.uri(), path, method);
                    assertThat(r.statusCode()).as(method + " /" + path).isEqualTo(405);
                    assertThat(r.headers().firstValue("Allow")).as(method + " /" + path).hasValue("GET, HEAD");
                    assertThat(r.body()).as(method + " /" + path).startsWith("{\"error\":\"" + method
                            + " is not allowed on /" + path + "; use GET");
                }
            }
            HttpResponse<String> dir = send(http, d.uri(), "vendor/uplot/", "GET");
            assertThat(dir.statusCode()).isEqualTo(404);
            assertThat(dir.body()).startsWith("{\"error\":\"nothing at /vendor/uplot/");

            // Every answer, the page's and an error quoting the client's text alike, carries the browser rules: no
            // framing of a page with rollback buttons, nothing but its own resources, no sniffing JSON into HTML.
            for (String path : new String[] {"", "api/v1/scopes/%3Cb%3Ex/versions", "healthz", "nothing"}) {
                HttpResponse<String> r = send(http, d.uri(), path, "GET");
                assertThat(r.headers().firstValue("Content-Security-Policy")).as(path).hasValue(SecurityHeaders.CSP);
                assertThat(r.headers().firstValue("X-Content-Type-Options")).as(path).hasValue("nosniff");
                assertThat(r.headers().firstValue("X-Frame-Options")).as(path).hasValue("DENY");
            }
        }
    }

    private static HttpResponse<String> send(HttpClient http, URI base, String path, String method) throws Exception {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).method(method, HttpRequest.BodyPublishers.noBody())
                .build(), HttpResponse.BodyHandlers.ofString());
    }
}
