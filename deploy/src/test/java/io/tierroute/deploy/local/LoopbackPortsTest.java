package io.tierroute.deploy.local;

import static org.assertj.core.api.Assertions.assertThat;

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
}
