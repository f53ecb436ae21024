package io.tierroute.dashboards.web;

import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Authorization header as the client's UTF-8, as the selector reads it. */
class CredentialsTest {

    /** What Undertow hands over for these wire bytes: one character per byte. */
    private static HttpServerExchange sent(byte[] wire) {
        HttpServerExchange ex = new HttpServerExchange(null);
        ex.getRequestHeaders().put(Headers.AUTHORIZATION, new String(wire, StandardCharsets.ISO_8859_1));
        return ex;
    }

    @Test
    void aNonAsciiTokenSentAsUtf8IsReadAsTheTokenItIs() {
        String token = "päss-wörd-✓";
        String header = Credentials.header(sent(("Bearer " + token).getBytes(StandardCharsets.UTF_8)));
        assertThat(Credentials.bearer(header)).isEqualTo(token);
        assertThat(Credentials.header(sent("Bearer plain".getBytes(StandardCharsets.US_ASCII)))).isEqualTo("Bearer plain");
    }

    @Test
    void bytesThatAreNoUtf8AreA400() {
        assertThatThrownBy(() -> Credentials.header(sent("Bearer päss".getBytes(StandardCharsets.ISO_8859_1))))
                .isInstanceOf(HttpError.class).hasMessageContaining("not UTF-8").hasMessageNotContaining("päss")
                .satisfies(e -> assertThat(((HttpError) e).status).isEqualTo(400));
    }
}
