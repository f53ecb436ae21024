package io.tierroute.selector.server;

import io.tierroute.selector.config.ConfigException;
import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.config.SelectorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLHandshakeException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code server.tls}: HTTPS with a key pair made at test time; no plain-HTTP listener beside it. */
class SelectorTlsTest {

    private static final String PASSWORD = "ks-pass-7c1d";

    @TempDir
    Path dir;

    private SelectorConfig config() {
        SelectorConfig c = ConfigLoader.parse("""
                workers: {count: 2}
                server:
                  tls: {keyStore: server.p12, keyStorePasswordEnv: KS_PASSWORD}
                """, dir);
        return c.withServer(c.server().withPort(0));
    }

    @Test
    void servesHttpsOnlyWithTheConfiguredKey() throws Exception {
        SelfSignedKeyStore ks = SelfSignedKeyStore.create(dir, PASSWORD);
        try (SelectorServer s = SelectorServer.startWith(config(), Map.of("KS_PASSWORD", PASSWORD,
                "TIERROUTE_ADMIN_TOKEN", "adm")::get, false)) {
            assertThat(s.uri().getScheme()).isEqualTo("https");
            HttpClient trusting = HttpClient.newBuilder().sslContext(ks.clientContext())
                    .connectTimeout(Duration.ofSeconds(5)).build();
            HttpResponse<String> health = trusting.send(HttpRequest.newBuilder(s.uri().resolve("/healthz")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(health.sslSession()).hasValueSatisfying(ss -> assertThat(ss.getProtocol()).startsWith("TLSv1."));
            HttpResponse<String> route = trusting.send(HttpRequest.newBuilder(s.uri().resolve("/v1/route"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"text\":\"hi\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(route.statusCode()).as(route.body()).isEqualTo(200);
            HttpResponse<String> drain = trusting.send(HttpRequest.newBuilder(s.uri().resolve("/v1/workers/w0/drain"))
                    .header("Authorization", "Bearer adm").POST(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(drain.statusCode()).isEqualTo(200);

            // A client that does not trust the certificate does not get through the handshake.
            HttpClient untrusting = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            assertThatThrownBy(() -> untrusting.send(HttpRequest.newBuilder(s.uri().resolve("/healthz")).build(),
                    HttpResponse.BodyHandlers.ofString())).isInstanceOf(SSLHandshakeException.class);
            // Plain HTTP on the same port gets no HTTP answer: the listener speaks TLS only.
            URI plain = URI.create("http://127.0.0.1:" + s.port() + "/healthz");
            assertThatThrownBy(() -> untrusting.send(HttpRequest.newBuilder(plain).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString())).isInstanceOf(IOException.class);
        }
    }

    @Test
    void aMissingOrWrongPasswordFailsTheStartWithoutShowingIt() throws Exception {
        SelfSignedKeyStore.create(dir, PASSWORD);
        assertThatThrownBy(() -> SelectorServer.startWith(config(), Map.<String, String>of()::get, false))
                .hasMessageContaining("KS_PASSWORD").hasMessageContaining("not set");
        String wrong = "not-the-password-123";
        assertThatThrownBy(() -> SelectorServer.startWith(config(), Map.of("KS_PASSWORD", wrong)::get, false))
                .hasMessageContaining("server.p12").hasMessageContaining("KS_PASSWORD")
                .satisfies(e -> assertThat(e.toString() + e.getCause()).doesNotContain(wrong).doesNotContain(PASSWORD));
    }

    @Test
    void aFileThatIsNoKeyStoreIsNotBlamedOnThePassword() throws Exception {
        Files.writeString(dir.resolve("server.p12"), "not a key store");
        assertThatThrownBy(() -> SelectorServer.startWith(config(), Map.of("KS_PASSWORD", PASSWORD)::get, false))
                .hasMessageContaining("server.p12").hasMessageContaining("is it a PKCS12 key store?")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("its password"));
    }

    @Test
    void configRefusesAMissingKeyStoreOrAnUnknownType() {
        assertThatThrownBy(() -> ConfigLoader.parse("workers: {count: 1}\nserver: {tls: {keyStore: nope.p12}}\n", dir))
                .isInstanceOf(ConfigException.class).hasMessageContaining("server.tls.keyStore")
                .hasMessageContaining("nope.p12");
        assertThatThrownBy(() -> ConfigLoader.parse("workers: {count: 1}\nserver: {tls: {keyStore: x, passwd: y}}\n", dir))
                .isInstanceOf(ConfigException.class).hasMessageContaining("passwd");
    }
}
