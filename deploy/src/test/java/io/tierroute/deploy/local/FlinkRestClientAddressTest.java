package io.tierroute.deploy.local;

import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** An address that cannot work is told as such: a port out of range before any call, a name that does not resolve. */
class FlinkRestClientAddressTest {
    @Test
    void aPortOutOfRangeIsRefusedUpFront() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new FlinkRestClient(URI.create("http://127.0.0.1:99999"), Duration.ofSeconds(1)))
                .withMessage("the Flink REST address's port must be in [1, 65535], got 99999");
    }

    @Test
    void aPathInTheAddressIsKeptForAFlinkBehindAProxy() {
        FlinkRestClient proxied = new FlinkRestClient(URI.create("http://gw:8080/flink/"), Duration.ofSeconds(1));
        org.assertj.core.api.Assertions.assertThat(proxied.at("/jobs/overview"))
                .isEqualTo(URI.create("http://gw:8080/flink/jobs/overview"));
        org.assertj.core.api.Assertions.assertThat(new FlinkRestClient(URI.create("http://f:8081"), Duration.ofSeconds(1))
                .at("/jars/upload")).isEqualTo(URI.create("http://f:8081/jars/upload"));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new FlinkRestClient(URI.create("http://127.0.0.1:8081/?x=1"), Duration.ofSeconds(1)))
                .withMessageContaining("without a query or fragment");
    }

    @Test
    void aHostNameThatDoesNotResolveIsNotCalledRefused() {
        FlinkRestClient c = new FlinkRestClient(URI.create("http://no.such.host.invalid:8081"), Duration.ofSeconds(5));
        assertThatThrownBy(c::overview).isInstanceOf(FlinkRestClient.FlinkRestException.class)
                .hasMessage("cannot reach the Flink cluster at http://no.such.host.invalid:8081 (GET /overview): the host "
                        + "name no.such.host.invalid does not resolve");
    }

    /** Exactly http and https, in any case, with a host; anything else is refused in one line with an example. */
    @Test
    void onlyHttpOrHttpsWithAHostIsAnAddress() {
        for (String bad : new String[] {"httpx://127.0.0.1:8081", "ftp://127.0.0.1:8081", "localhost:8081",
                "http:///jobs", "https-ish://h:1"}) {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> new FlinkRestClient(URI.create(bad), Duration.ofSeconds(1)))
                    .as(bad).withMessage("the Flink REST address must be http://HOST:PORT or https://HOST:PORT, e.g. "
                            + "http://HOST:8081, got " + bad);
        }
        for (String good : new String[] {"HTTP://127.0.0.1:8081", "Https://flink.example:443", "http://f:8081"}) {
            FlinkRestClient c = new FlinkRestClient(URI.create(good), Duration.ofSeconds(1));
            org.assertj.core.api.Assertions.assertThat(c.at("/jobs").getScheme()).as(good)
                    .isIn("http", "https");
        }
    }
}
