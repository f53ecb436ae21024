package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A {@code --command-config} file that is no properties file is one usage line naming it, for every command. */
class KafkaClientConfigTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(List<String> command, Path config) {
        err.getBuffer().setLength(0);
        String[] args = java.util.stream.Stream.concat(command.stream(),
                java.util.stream.Stream.of("--bootstrap", "127.0.0.1:9", "--command-config", config.toString()))
                .toArray(String[]::new);
        return TierrouteCommand.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
    }

    private static final List<List<String>> COMMANDS = List.of(List.of("snapshots", "list"),
            List.of("snapshots", "pin", "1", "--reason", "test"), List.of("fleet", "--workload", "chat"),
            List.of("dashboard"));

    @Test
    void aMalformedEscapeIsAUsageErrorNamingTheFileNotAStackTrace(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("client.properties");
        Files.writeString(file, "security.protocol=PLAINTEXT\n\\u00zz=1\n");
        for (List<String> command : COMMANDS) {
            assertThat(run(command, file)).as(command + ": " + err).isEqualTo(2);
            assertThat(err.toString()).as(command.toString())
                    .startsWith("--command-config " + file + ": not a valid properties file (Malformed \\uxxxx encoding.)")
                    .doesNotContain("\tat ").doesNotContain("IllegalArgumentException");
        }
    }

    /** The address is --bootstrap's in every command: before, fleet refused the key and snapshots and dashboard ignored it. */
    @Test
    void bootstrapServersInTheFileIsRefusedByNameInEveryCommand(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("client.properties");
        Files.writeString(file, "security.protocol=PLAINTEXT\nbootstrap.servers=elsewhere.invalid:9092\n");
        for (List<String> command : COMMANDS) {
            assertThat(run(command, file)).as(command + ": " + err).isEqualTo(2);
            assertThat(err.toString()).as(command.toString())
                    .startsWith("--command-config " + file + ": 'bootstrap.servers' is --bootstrap's; remove it from the file")
                    .doesNotContain("elsewhere.invalid");
        }
    }

    @Test
    void aFileThatIsNotUtf8SaysSo(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("latin1.properties");
        Files.write(file, new byte[] {'a', '=', (byte) 0xff, (byte) 0xfe, '\n'});
        assertThat(run(COMMANDS.get(0), file)).isEqualTo(2);
        assertThat(err.toString()).startsWith("--command-config " + file + ": not valid UTF-8 text")
                .doesNotContain("Input length");
    }
}
