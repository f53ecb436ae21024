package io.tierroute.selector.server;

import io.undertow.Undertow;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A stopping listener: a request already in is answered and waited for, a new one gets the API's JSON 503. */
class StoppingGateTest {

    @Test
    void aRequestInIsAnsweredANewOneGetsAJson503() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // A plain slow handler on a worker thread: held until released.
        StoppingGate gate = new StoppingGate(new io.undertow.server.handlers.BlockingHandler(ex -> {
            inside.countDown();
            release.await(10, TimeUnit.SECONDS);
            ex.getResponseSender().send("done");
        }));
        Undertow u = Undertow.builder().addHttpListener(0, "127.0.0.1").setHandler(gate).build();
        u.start();
        try {
            int port = ((InetSocketAddress) u.getListenerInfo().get(0).getAddress()).getPort();
            HttpClient client = HttpClient.newHttpClient();
            HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/x"))
                    .timeout(Duration.ofSeconds(10)).build();
            CompletableFuture<HttpResponse<String>> first = client.sendAsync(req, HttpResponse.BodyHandlers.ofString());
            assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
            gate.stop();
            HttpResponse<String> second = HttpClient.newHttpClient().send(req, HttpResponse.BodyHandlers.ofString());
            assertThat(second.statusCode()).isEqualTo(503);
            assertThat(second.body()).isEqualTo("{\"error\":\"" + StoppingGate.STOPPING + "\"}");
            assertThat(second.headers().firstValue("retry-after")).hasValue("1");
            assertThat(gate.awaitAnswered(100)).as("the first is still being answered").isFalse();
            release.countDown();
            assertThat(gate.awaitAnswered(5_000)).isTrue();
            assertThat(first.get(5, TimeUnit.SECONDS).body()).isEqualTo("done");
        } finally {
            release.countDown();
            u.stop();
        }
    }
}
