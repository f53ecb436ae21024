package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** One --bootstrap check for every command, before any Kafka client is built (BrokerListTest: which lists are one Kafka). */
class BootstrapAddressTest {

    @Test
    void acceptsWhatKafkaAccepts() {
        for (String ok : new String[] {"localhost:9092", "127.0.0.1:1", "h:65535", "a:1,b:2", "[::1]:9092", "kafka-0.k.svc:9093",
                "PLAINTEXT://127.0.0.1:9092", "SASL_SSL://b-1.kafka:9096,SASL_SSL://b-2.kafka:9096"}) {
            assertThat(BootstrapAddress.valid(ok)).as(ok).isTrue();
        }
        for (String bad : new String[] {"localhost", "localhost:abc", "127.0.0.1:99999", "h:0", "h:1,", "", " ", ":9092", "h:1:2", "PLAINTEXT://h", "://h:1"}) {
            assertThat(BootstrapAddress.valid(bad)).as(bad).isFalse();
        }
    }

    @Test
    void everyCommandRefusesABadOneUpFrontNamingTheOption() {
        String[][] cases = {
                {"snapshots", "list", "-b", "localhost:abc"},
                {"snapshots", "list", "-b", "127.0.0.1:99999"},
                {"snapshots", "pin", "-b", "localhost:abc", "--reason", "r", "1"},
                {"dashboard", "-b", "localhost:abc", "-p", "0"},
                {"submit", "--flink", "http://127.0.0.1:" + io.tierroute.deploy.local.LoopbackPorts.free(), "--bootstrap",
                        "127.0.0.1:99999"},
        };
        for (String[] args : cases) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int rc = TierrouteCommand.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
            String bad = args[java.util.Arrays.asList(args).indexOf(args[0].equals("submit") ? "--bootstrap" : "-b") + 1];
            assertThat(rc).as(String.join(" ", args) + "\n" + err).isEqualTo(2);
            assertThat(err.toString().lines().findFirst().orElse("")).as(String.join(" ", args))
                    .isEqualTo("--bootstrap must be HOST:PORT[,HOST:PORT...] with a port in [1, 65535], got '" + bad + "'");
        }
    }
}
