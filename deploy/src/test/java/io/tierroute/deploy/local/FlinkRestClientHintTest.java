package io.tierroute.deploy.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What a refused connection suggests: by default where to look, nothing or the caller's words when it knows better. */
class FlinkRestClientHintTest {

    private static final URI CLOSED = URI.create("http://127.0.0.1:" + LoopbackPorts.free());

    @Test
    void theDefaultHintNamesClusterStatus() {
        assertThatThrownBy(() -> new FlinkRestClient(CLOSED, Duration.ofSeconds(2)).overview())
                .isInstanceOf(FlinkRestClient.FlinkRestException.class)
                .hasMessage("cannot reach the Flink cluster at " + CLOSED + " (GET /overview): connection refused; "
                        + FlinkRestClient.DEFAULT_UNREACHABLE_HINT);
    }

    @Test
    void aCallerSuppliesItsOwnHintOrNone() {
        FlinkRestClient plain = new FlinkRestClient(CLOSED, Duration.ofSeconds(2));
        assertThatThrownBy(() -> plain.withUnreachableHint("").jobs())
                .hasMessage("cannot reach the Flink cluster at " + CLOSED + " (GET /jobs/overview): connection refused");
        assertThatThrownBy(() -> plain.withUnreachableHint("is the JobManager up?").jobs())
                .hasMessageEndingWith("connection refused; is the JobManager up?");
        assertThat(plain.withUnreachableHint("").base()).isEqualTo(plain.base());
    }

    @Test
    void theMessageBuilder() {
        URI u = URI.create("http://h:1");
        assertThat(FlinkRestTransport.refusedMessage(u, "GET /x", "")).isEqualTo("cannot reach the Flink cluster at "
                + "http://h:1 (GET /x): connection refused");
        assertThat(FlinkRestTransport.refusedMessage(u, "GET /x", "try y")).endsWith("connection refused; try y");
    }
}
