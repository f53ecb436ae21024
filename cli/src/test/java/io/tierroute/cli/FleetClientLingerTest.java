package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.deploy.local.ProjectTopics;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code --command-config} file's {@code linger.ms} reaches every producer of a fleet run. One of 30 s made the
 * selector's decision producer refuse to be built (its delivery timeout's default was below linger plus request
 * timeout) and the run exited 1 saying only "Failed to construct kafka producer"; one of a few seconds held the last
 * decisions past the stop's wait for them, and a clean run ended as a failure. Now a long linger runs and stops clean,
 * and settings Kafka does refuse are named with Kafka's reason.
 */
class FleetClientLingerTest {

    @TempDir
    Path dir;

    private static String[] run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = TierrouteCommand.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new String[] {Integer.toString(rc), out.toString(), err.toString()};
    }

    @Test
    void aLongLingerRunsAndStopsCleanAndSettingsKafkaRefusesAreNamedWithItsReason() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            ProjectTopics.create(kafka.bootstrapServers(), (short) 1);
            Path lingering = Files.writeString(dir.resolve("linger.properties"), "linger.ms=30000\n");
            String[] r = run("fleet", "--bootstrap", kafka.bootstrapServers(), "--workload", "chat", "--limit", "20",
                    "--workers", "2", "--time-scale", "200", "--command-config", lingering.toString());
            assertThat(r[0]).as(r[1] + r[2]).isEqualTo("0");
            assertThat(r[1]).contains("tierroute fleet: stopping (the fleet replayed every request)")
                    .contains("decisions published: 20 acknowledged of 20 offered (0 dropped or failed, 0 still in flight)")
                    .containsPattern("fleet records: (\\d+) acknowledged of \\1 sent \\(0 failed, 0 dropped at the close\\)");

            Path contradictory = Files.writeString(dir.resolve("contradictory.properties"),
                    "linger.ms=60000\ndelivery.timeout.ms=30000\n");
            String[] refused = run("fleet", "--bootstrap", kafka.bootstrapServers(), "--workload", "chat", "--limit", "20",
                    "--command-config", contradictory.toString());
            assertThat(refused[0]).as(refused[1] + refused[2]).isEqualTo("1");
            assertThat(refused[2]).contains("tierroute fleet: cannot start: Failed to construct kafka producer: "
                            + "delivery.timeout.ms should be equal to or larger than linger.ms + request.timeout.ms")
                    .contains("; check the client settings in " + contradictory);
        }
    }
}
