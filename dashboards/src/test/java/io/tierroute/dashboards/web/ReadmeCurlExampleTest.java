package io.tierroute.dashboards.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierroute.dashboards.Broker;
import io.tierroute.dashboards.Dashboard;
import io.tierroute.dashboards.DashboardFixture;
import io.tierroute.dashboards.Snapshots;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's write example, sent as curl sends it, against a real dashboard and broker: it pins (the write API
 * answers 415 to anything but {@code Content-Type: application/json}, and curl's {@code -d} sends a form type unless
 * told otherwise), and the 415 the README quotes for curl's default is the dashboard's.
 */
class ReadmeCurlExampleTest {

    private static final String TOKEN = "readme-t0ken";
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    final DashboardFixture fixture = DashboardFixture.seededWith(Snapshots.accepted("default", 3),
            Snapshots.accepted("default", 4));
    private final HttpClient http = HttpClient.newHttpClient();

    /** A curl command as the README writes it: headers ({@code -H}), body ({@code -d}) and URL. */
    private record Curl(List<String> headers, String body, URI url) {
        static Curl parse(String command) {
            List<String> headers = new ArrayList<>();
            Matcher h = Pattern.compile("-H (?:'([^']*)'|\"([^\"]*)\")").matcher(command);
            while (h.find()) {
                headers.add(h.group(1) != null ? h.group(1) : h.group(2));
            }
            Matcher d = Pattern.compile("-d '([^']*)'").matcher(command);
            Matcher u = Pattern.compile("(https?://\\S+)").matcher(command);
            assertThat(d.find() && u.find()).as("a body and a URL in: " + command).isTrue();
            return new Curl(headers, d.group(1), URI.create(u.group(1)));
        }
    }

    /** The curl command of the README's fenced example that posts to a pin, continuation lines joined. */
    private static String readmePinExample() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        Matcher block = Pattern.compile("```bash\\n(.*?)```", Pattern.DOTALL).matcher(readme);
        while (block.find()) {
            String command = block.group(1).replace("\\\n", " ").strip();
            if (command.startsWith("curl ") && command.contains("/api/v1/scopes/default/pin")) {
                return command;
            }
        }
        throw new AssertionError("README.md has no curl example of POST /api/v1/scopes/{scope}/pin");
    }

    private HttpResponse<String> send(Curl c, Dashboard dashboard, boolean withHeaders) throws Exception {
        URI at = dashboard.uri().resolve(c.url().getRawPath());
        HttpRequest.Builder b = HttpRequest.newBuilder(at).POST(HttpRequest.BodyPublishers.ofString(c.body()));
        for (String header : c.headers()) {
            int colon = header.indexOf(':');
            String value = header.substring(colon + 1).strip().replace("$TIERROUTE_ADMIN_TOKEN", TOKEN);
            if (withHeaders || header.startsWith("Authorization")) {
                b.header(header.substring(0, colon), value);
            }
        }
        if (!withHeaders) {
            b.header("Content-Type", "application/x-www-form-urlencoded"); // what curl -d sends by itself
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theReadmesPinExamplePinsAndCurlsDefaultTypeGetsTheQuoted415() throws Exception {
        Curl curl = Curl.parse(readmePinExample());
        assertThat(curl.headers()).contains("Content-Type: application/json");
        Dashboard dashboard = fixture.startDashboard(new Dashboard.Settings(Broker.bootstrap(), "127.0.0.1", 0, TOKEN,
                "TIERROUTE_ADMIN_TOKEN", "default"));

        HttpResponse<String> formType = send(curl, dashboard, false);
        assertThat(formType.statusCode()).isEqualTo(415);
        String readme = Files.readString(Path.of("README.md"));
        assertThat(readme).as("the README quotes the 415")
                .contains("{\"error\": \"" + JSON.readTree(formType.body()).get("error").asText() + "\"}");

        HttpResponse<String> r = send(curl, dashboard, true);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(r.body());
        assertThat(answer.get("action").asText()).isEqualTo("PIN");
        assertThat(answer.get("version").asLong()).isEqualTo(3);
        assertThat(answer.get("previousActive").asLong()).isEqualTo(4);
        System.out.println("[measured] the README's pin example answers: " + r.body());
    }
}
