package io.tierroute.selector.soak;

import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.NoHttpResponseException;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.util.Timeout;

import java.io.IOException;
import java.net.URI;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The soak's HTTP client: Apache HttpClient, not the JDK's. Under this load the JDK 17 client lost
 * about one answer in 10^5 (JDK-8336655: a pooled connection's idle-cleanup reader can take the
 * response meant for the next exchange and close the connection; the client reports "header parser
 * received no bytes" although the server wrote the whole answer — server-side tracing showed the
 * bytes written, then the client's close). No automatic retries: every call is sent once, and a call
 * without an answer is counted in {@link #lostAnswers}.
 */
final class SoakHttp implements AutoCloseable {

    /** An answer: status and body. */
    record Answer(int status, String body) {
    }

    private final CloseableHttpClient client;
    /** Calls whose connection closed before any byte of the answer. */
    final AtomicLong lostAnswers = new AtomicLong();

    /** @param connections the most calls in flight at once (one pooled connection each) */
    SoakHttp(int connections) {
        client = HttpClients.custom()
                .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                        .setMaxConnTotal(connections).setMaxConnPerRoute(connections)
                        .setDefaultConnectionConfig(ConnectionConfig.custom()
                                .setConnectTimeout(Timeout.ofSeconds(5)).setSocketTimeout(Timeout.ofSeconds(30)).build())
                        .build())
                .disableAutomaticRetries()
                .build();
    }

    /** One POST of a JSON body; null when no answer came (counted in {@link #lostAnswers}). */
    Answer post(URI uri, String json) throws IOException {
        HttpPost post = new HttpPost(uri);
        post.setEntity(new StringEntity(json, ContentType.APPLICATION_JSON));
        try {
            return client.execute(post, r -> new Answer(r.getCode(), EntityUtils.toString(r.getEntity())));
        } catch (NoHttpResponseException e) {
            lostAnswers.incrementAndGet();
            return null;
        }
    }

    @Override
    public void close() throws IOException {
        client.close();
    }
}
