package io.tierroute.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.cli.TierrouteCommand;
import io.tierroute.deploy.local.LoopbackPorts;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * {@code tierroute demo --kafka-port N}: Kafka runs as a broker process on exactly that port (the
 * embedded broker's port cannot be pinned), the demo runs on it and stops it at the end; a taken port is
 * refused naming the flag.
 */
class DemoKafkaPortTest {

    @Test
    void theDemoRunsOnABrokerProcessOnTheGivenPortAndStopsIt() {
        int port = LoopbackPorts.free();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = TierrouteCommand.execute(new String[] {"demo", "--trace", LiveInput.TRACE.toString(), "--time-scale", "40",
                "--duration", "3s", "--flink-ui-port", "0", "--dashboard-port", "0", "--selector-port", "0",
                "--kafka-port", Integer.toString(port)},
                new PrintWriter(out, true), new PrintWriter(err, true));
        assertThat(rc).as(out + "\n" + err).isZero();
        assertThat(out.toString()).contains("Kafka bootstrap:  127.0.0.1:" + port, "--duration reached")
                .doesNotContain("requests: 0 routed");
        assertThat(LoopbackPorts.listening(port)).as("the broker process is stopped with the demo").isFalse();
    }

    @Test
    void aTakenKafkaPortIsRefusedNamingTheFlag() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            StringWriter err = new StringWriter();
            int rc = TierrouteCommand.execute(new String[] {"demo", "--trace", LiveInput.TRACE.toString(),
                    "--flink-ui-port", "0", "--dashboard-port", "0", "--selector-port", "0",
                    "--kafka-port", Integer.toString(taken.getLocalPort())},
                    new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
            assertThat(rc).isEqualTo(1);
            assertThat(err.toString()).contains("port " + taken.getLocalPort() + " (--kafka-port) is taken");
        }
    }
}
