package io.tierroute.deploy.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The TCP probe before an Admin client: 'cluster status' of a stopped broker answers at once and logs nothing. */
class BootstrapAddressesTest {

    @Test
    void anAddressWithAListenerAnswersAndOneWithoutDoesNot() throws Exception {
        int closed = LoopbackPorts.free();
        try (ServerSocket open = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) { // never accepted: room for every probe
            assertThat(BootstrapAddresses.anyListening("127.0.0.1:" + open.getLocalPort())).isTrue();
            assertThat(BootstrapAddresses.anyListening("127.0.0.1:" + closed + ", 127.0.0.1:" + open.getLocalPort()))
                    .as("any one address listening is enough").isTrue();
            assertThat(BootstrapAddresses.anyListening("PLAINTEXT://127.0.0.1:" + open.getLocalPort()))
                    .as("a listener-style prefix, as Kafka's clients accept it").isTrue();
        }
        assertThat(BootstrapAddresses.anyListening("127.0.0.1:" + closed)).isFalse();
        assertThat(BootstrapAddresses.anyListening("SASL_SSL://127.0.0.1:" + closed)).isFalse();
    }

    @Test
    void anEntryThatIsNotHostAndPortIsLeftToTheKafkaClient() {
        for (String odd : new String[] {"localhost", "host:", ":9092", "host:port", "host:70000", "no-such-host.invalid:9092"}) {
            assertThat(BootstrapAddresses.anyListening(odd)).as(odd).isTrue();
        }
    }

    @Test
    void aListIsUnresolvableOnlyWhenNoneOfItsHostsResolves() {
        assertThat(BootstrapAddresses.noneResolves("no-such-host.invalid:9092")).containsExactly("no-such-host.invalid");
        assertThat(BootstrapAddresses.noneResolves("SASL_SSL://a.invalid:9093, b.invalid:9092,a.invalid:9094"))
                .as("each host once, in order, a listener prefix left out").containsExactly("a.invalid", "b.invalid");
        assertThat(BootstrapAddresses.noneResolves("no-such-host.invalid:9092,127.0.0.1:9092"))
                .as("one host that resolves is enough for the clients").isEmpty();
        assertThat(BootstrapAddresses.noneResolves("[::1]:9092")).isEmpty();
        for (String odd : new String[] {"localhost", "host:", ":9092", "x.invalid:port", "x.invalid:70000"}) {
            assertThat(BootstrapAddresses.noneResolves(odd)).as("not host:port, left to the Kafka client: " + odd).isEmpty();
        }
    }

    @Test
    void describingAStoppedBrokerLogsNoConnectionWarnings() {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        boolean answers;
        try {
            answers = KafkaBrokerProcess.describes("127.0.0.1:" + LoopbackPorts.free());
        } finally {
            System.setErr(err);
        }
        assertThat(answers).isFalse();
        assertThat(captured.toString(StandardCharsets.UTF_8)).doesNotContain("could not be established");
    }
}
