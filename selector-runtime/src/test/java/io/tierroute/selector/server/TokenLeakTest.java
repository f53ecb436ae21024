package io.tierroute.selector.server;

import io.tierroute.selector.http.Route;
import io.undertow.util.Methods;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Secrets never reach the logs, the answers or {@code /metrics}: a selector in a child JVM with its
 * tokens and key store password in real environment variables and its loggers at debug gets every
 * route with no, wrong, lesser and right tokens; its whole stdout + stderr and every response are
 * searched for each secret.
 */
class TokenLeakTest {

    private static final String ADMIN = "adm-" + UUID.randomUUID();
    private static final String READ = "rd-" + UUID.randomUUID();
    private static final String DATA = "dt-" + UUID.randomUUID();
    private static final String KS_PASSWORD = "ks-" + UUID.randomUUID();
    private static final List<String> SECRETS = List.of(ADMIN, READ, DATA, KS_PASSWORD);

    @TempDir
    Path dir;

    private Process child(Path config) throws Exception {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=debug",
                "-cp", cp, SelectorChild.class.getName(), config.toString());
        pb.environment().putAll(Map.of("TIERROUTE_ADMIN_TOKEN", ADMIN, "TIERROUTE_READ_TOKEN", READ,
                "TIERROUTE_DATA_TOKEN", DATA, "TIERROUTE_TLS_KEYSTORE_PASSWORD", KS_PASSWORD));
        return pb.redirectErrorStream(true).start();
    }

    @Test
    void noSecretInLogsAnswersOrMetrics() throws Exception {
        SelfSignedKeyStore ks = SelfSignedKeyStore.create(dir, KS_PASSWORD);
        Files.writeString(dir.resolve("params.yaml"), "version: 1\n");
        Path config = dir.resolve("selector.yaml");
        Files.writeString(config, """
                workers: {count: 2}
                parametersFile: params.yaml
                access: {read: token, data: token}
                server:
                  tls: {keyStore: server.p12}
                """);
        Process p = child(config);
        StringBuilder output = new StringBuilder();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        URI base = null;
        for (String line; base == null && (line = out.readLine()) != null; ) {
            output.append(line).append('\n');
            if (line.startsWith("URI ")) {
                base = URI.create(line.substring(4));
            }
        }
        assertThat(base).as("the child did not start:\n" + output).isNotNull();
        CompletableFuture<String> rest = CompletableFuture.supplyAsync(() -> {
            StringBuilder sb = new StringBuilder();
            try {
                for (String line; (line = out.readLine()) != null; ) {
                    sb.append(line).append('\n');
                }
            } catch (java.io.IOException e) {
                sb.append(e);
            }
            return sb.toString();
        });

        HttpClient client = HttpClient.newBuilder().sslContext(ks.clientContext())
                .connectTimeout(Duration.ofSeconds(5)).build();
        List<String> answers = new ArrayList<>();
        List<String> tries = new ArrayList<>();
        tries.add(null);
        for (String s : SECRETS) {
            tries.addAll(List.of(s, s + "x", s.substring(1), "Basic " + s));
        }
        // A parameter file the reload refuses: its error goes into the answer (and maybe the log).
        Files.writeString(dir.resolve("params.yaml"), "version: 2\nparameters: {alphaD: -1}\n");
        int ok = 0;
        for (Route r : Route.values()) {
            for (String t : tries) {
                HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(r.path("w0"))).timeout(Duration.ofSeconds(10));
                if (t != null) {
                    b.header("Authorization", t.startsWith("Basic ") ? t : "Bearer " + t);
                }
                if (r.method().equals(Methods.GET)) {
                    b.GET();
                } else {
                    b.POST(HttpRequest.BodyPublishers.ofString("{\"worker\":\"w0\",\"text\":\"x\",\"healthy\":true}"));
                }
                HttpResponse<String> resp = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
                ok += resp.statusCode() < 400 ? 1 : 0;
                answers.add(resp.statusCode() + " " + resp.headers().map() + " " + resp.body());
            }
        }
        HttpResponse<String> metrics = client.send(HttpRequest.newBuilder(base.resolve("/metrics"))
                .header("Authorization", "Bearer " + READ).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("tierroute_http_responses_total");
        answers.add(metrics.body());

        p.getOutputStream().close(); // the child stops
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        output.append(rest.get(10, TimeUnit.SECONDS));

        assertThat(ok).as("some calls were allowed").isGreaterThan(5);
        assertThat(output).as("the log capture works").contains("listening on") // slf4j-simple
                .contains("starting server: Undertow"); // Undertow's own logging
        for (String s : SECRETS) {
            assertThat(output.toString()).as("log output").doesNotContain(s);
            assertThat(String.join("\n", answers)).as("answers").doesNotContain(s);
        }
    }

    @Test
    void aFailedStartLogsNoSecret() throws Exception {
        // The configured key store is not a key store: the start fails, with the environment full of secrets.
        Path ks = dir.resolve("bad.p12");
        Files.writeString(ks, "not a key store");
        Path config = dir.resolve("selector.yaml");
        Files.writeString(config, "workers: {count: 1}\nserver: {tls: {keyStore: bad.p12}}\n");
        Process p = child(config);
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(output).isEqualTo(2);
        // The file is what is wrong, not the password: the message says so (it blamed the password before)
        assertThat(output).contains("cannot start the selector").contains("bad.p12")
                .contains("the file ends early; is it a PKCS12 key store?");
        for (String s : SECRETS) {
            assertThat(output).doesNotContain(s);
        }
    }
}
