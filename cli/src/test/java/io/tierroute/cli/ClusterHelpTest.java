package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/**
 * What 'cluster --help' says of where the cluster listens: Flink's Prometheus reporter binds the wildcard address
 * (flink-metrics-prometheus has no bind-address setting), so the help must not say the whole cluster is on loopback.
 */
class ClusterHelpTest {

    private static String help(String... args) {
        StringWriter out = new StringWriter();
        assertThat(TierrouteCommand.execute(args, new PrintWriter(out, true), new PrintWriter(new StringWriter(), true)))
                .isZero();
        return out.toString().replaceAll("\\s+", " ");
    }

    @Test
    void theMetricsPortsAreSaidToListenOnEveryInterfaceWithTheWaysToCloseThem() {
        assertThat(help("cluster", "--help")).doesNotContain("session cluster (loopback)")
                .contains("Flink's Prometheus metrics ports listen on every interface");
        assertThat(help("cluster", "up", "--help")).contains("these listen on every interface, not only loopback")
                .contains("block them with a firewall, or give 0");
    }
}
