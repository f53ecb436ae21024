package io.tierroute.selector.http;

import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.config.SelectorConfig;
import io.tierroute.selector.server.SelectorServer;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

/** A real server on an ephemeral loopback port and an HTTP client to talk to it. */
final class ApiTestServer implements AutoCloseable {

    static final String TOKEN = "test-admin-token";

    final SelectorServer server;
    final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    ApiTestServer(String yaml, Path dir, String adminToken) {
        SelectorConfig config = ConfigLoader.parse(yaml, dir);
        server = SelectorServer.start(config.withServer(config.server().withPort(0).withHost("127.0.0.1")),
                adminToken, false);
    }

    /** The fixture most API tests share: 4 workers w0..w3, a parameter file (α_d 40), a 64 KiB body bound, the admin token. */
    static ApiTestServer fourWorkers(Path dir) throws IOException {
        java.nio.file.Files.writeString(dir.resolve("params.yaml"), "scope: default\nversion: 1\nparameters: {alphaD: 40}\n");
        return new ApiTestServer("""
                model: {name: m, blockSize: 16, bytesPerToken: 1024}
                workers: {count: 4, namePrefix: w}
                parametersFile: params.yaml
                server: {maxBodyBytes: 65536}
                """, dir, TOKEN);
    }

    /** The chained hashes of block ids {@code firstId..} under the fixture model's salt, as an engine reports them. */
    static long[] chain(long firstId, int n) {
        long[] ids = java.util.stream.LongStream.range(firstId, firstId + n).toArray();
        long[] out = new long[n];
        new io.tierroute.selector.protocol.BlockHasher().hashBlockIds(ids, n,
                io.tierroute.selector.protocol.BlockHasher.salt("m", null, null), out);
        return out;
    }

    /** {@code a} as a JSON array. */
    static String list(long[] a) {
        return java.util.Arrays.stream(a).mapToObj(Long::toString)
                .collect(java.util.stream.Collectors.joining(",", "[", "]"));
    }

    URI uri(String path) {
        return server.uri().resolve(path);
    }

    HttpResponse<String> post(String path, String body, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString(body)).header("content-type", "application/json");
        if (headers.length > 0) {
            b.headers(headers);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> send(HttpRequest.Builder b) throws IOException, InterruptedException {
        return client.send(b.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() {
        server.close();
    }
}
