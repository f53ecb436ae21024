package io.tierroute.deploy.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class LoopbackPortsTest {

    @Test
    void aChosenPortIsBindableAndOutsideTheKernelsEphemeralRange() throws Exception {
        int ephemeralStart = Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0)
                .trim().split("\\s+")[0]);
        for (int i = 0; i < 50; i++) {
            int port = LoopbackPorts.free();
            assertThat(port).isBetween(20_000, ephemeralStart - 1);
            assertThat(LoopbackPorts.listening(port)).isFalse();
        }
    }

    /**
     * Flink's Prometheus reporter binds every interface: a port another process holds on an address other than
     * 127.0.0.1 (127.0.0.2 here, a loopback address too on Linux) passes the check on 127.0.0.1, and the reporter
     * then failed to start without a word. The check on every interface refuses it.
     */
    @Test
    void aPortTakenOnAnotherAddressIsTakenForAReporterOnEveryInterface() throws Exception {
        int port = LoopbackPorts.free();
        try (ServerSocket other = new ServerSocket()) {
            other.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), port));
            LoopbackPorts.requireFree(port, "--kafka-port"); // 127.0.0.1 alone: free
            assertThatThrownBy(() -> LoopbackPorts.requireFreeEverywhere(port, "--metrics-port range"))
                    .isInstanceOf(LoopbackPorts.PortTakenException.class)
                    .hasMessageStartingWith("port " + port + " (--metrics-port range) is taken on an interface of this "
                            + "machine: ");
        }
        LoopbackPorts.requireFreeEverywhere(port, "--metrics-port range");
    }
}
