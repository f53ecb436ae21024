package io.tierroute.selector.server;

import io.tierroute.selector.config.ConfigException;
import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.config.SelectorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLHandshakeException;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

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

    /**
     * Over TLS the hang-up watch reads through the TLS layer: a queued route is answered as usual, and a queued
     * route whose client closes its connection leaves the queue.
     */
    @Test
    void aQueuedRouteOverHttpsIsAnsweredOrWithdrawnWhenItsClientLeaves() throws Exception {
        SelfSignedKeyStore ks = SelfSignedKeyStore.create(dir, PASSWORD);
        SelectorConfig c = ConfigLoader.parse("""
                workers: [{name: only, maxInFlight: 1}]
                routing: {maxQueueWait: 30s}
                server:
                  tls: {keyStore: server.p12, keyStorePasswordEnv: KS_PASSWORD}
                """, dir);
        try (SelectorServer s = SelectorServer.startWith(c.withServer(c.server().withPort(0)),
                Map.of("KS_PASSWORD", PASSWORD)::get, false)) {
            HttpClient trusting = HttpClient.newBuilder().sslContext(ks.clientContext()).build();
            assertThat(route(trusting, s, "a").statusCode()).isEqualTo(200);
            CompletableFuture<HttpResponse<String>> waiting = trusting.sendAsync(routeRequest(s, "b"),
                    HttpResponse.BodyHandlers.ofString());
            QueueLength.await(s, 1);
            finish(trusting, s, "a");
            HttpResponse<String> b = waiting.get(10, TimeUnit.SECONDS);
            assertThat(b.statusCode()).as(b.body()).isEqualTo(200);
            assertThat(b.body()).contains("\"request_id\":\"b\"");

            String body = "{\"request_id\":\"gone\",\"text\":\"x\"}";
            try (Socket socket = ks.clientContext().getSocketFactory().createSocket("127.0.0.1", s.port())) {
                socket.getOutputStream().write(("POST /v1/route HTTP/1.1\r\nHost: selector\r\nContent-Length: "
                        + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
                QueueLength.await(s, 1);
            }
            QueueLength.await(s, 0);
            finish(trusting, s, "b");
            assertThat(route(trusting, s, "c").statusCode()).isEqualTo(200);
        }
    }

    private static HttpRequest routeRequest(SelectorServer s, String id) {
        return HttpRequest.newBuilder(s.uri().resolve("/v1/route")).timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString("{\"request_id\":\"" + id + "\",\"text\":\"x\"}")).build();
    }

    private static HttpResponse<String> route(HttpClient client, SelectorServer s, String id) throws Exception {
        return client.send(routeRequest(s, id), HttpResponse.BodyHandlers.ofString());
    }

    private static void finish(HttpClient client, SelectorServer s, String id) throws Exception {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(s.uri().resolve("/v1/requests/events"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"request_id\":\"" + id + "\",\"type\":\"finished\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
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

    /** A key store of the certificate alone (tls.crt imported without its key) started a listener no handshake got through. */
    @Test
    void aKeyStoreWithoutAPrivateKeyFailsTheStart() throws Exception {
        SelfSignedKeyStore full = SelfSignedKeyStore.create(dir, PASSWORD);
        java.security.KeyStore in = java.security.KeyStore.getInstance("PKCS12");
        try (var is = Files.newInputStream(full.file())) {
            in.load(is, PASSWORD.toCharArray());
        }
        java.security.KeyStore certOnly = java.security.KeyStore.getInstance("PKCS12");
        certOnly.load(null, null);
        certOnly.setCertificateEntry("tierroute", in.getCertificate("tierroute"));
        try (var os = Files.newOutputStream(full.file())) {
            certOnly.store(os, PASSWORD.toCharArray());
        }
        assertThatThrownBy(() -> SelectorServer.startWith(config(), Map.of("KS_PASSWORD", PASSWORD)::get, false))
                .hasMessageContaining("server.tls: the key store " + dir.resolve("server.p12") + " holds no private key "
                        + "(1 certificate entry only)");
    }

    /** A mounted secret's trailing newline: the key store takes the password without it, as the tokens are stripped. */
    @Test
    void aPasswordWithATrailingNewlineIsTakenWithoutIt() throws Exception {
        SelfSignedKeyStore.create(dir, PASSWORD);
        try (SelectorServer s = SelectorServer.startWith(config(), Map.of("KS_PASSWORD", PASSWORD + "\n")::get, false)) {
            assertThat(s.uri().getScheme()).isEqualTo("https");
        }
        assertThatThrownBy(() -> SelectorServer.startWith(config(), Map.of("KS_PASSWORD", "wrong\n")::get, false))
                .hasMessageContaining("is KS_PASSWORD its password?");
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
