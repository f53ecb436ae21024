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

    /**
     * A key a command's clients set themselves is refused by name in every command, never silently overridden or
     * ignored (before, only fleet refused them); the message names the keys, never their values.
     */
    @Test
    void keysTheClientsSetThemselvesAreRefusedByNameInEveryCommand(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("client.properties");
        for (String key : List.of("group.id", "key.deserializer", "isolation.level", "transactional.id")) {
            Files.writeString(file, "security.protocol=PLAINTEXT\n" + key + "=s3cret-value\n");
            for (List<String> command : COMMANDS) {
                assertThat(run(command, file)).as(command + " " + key + ": " + err).isEqualTo(2);
                assertThat(err.toString()).as(command + " " + key)
                        .startsWith("--command-config " + file + ": '" + key + "' is set by ")
                        .contains(" itself and cannot be overridden (").doesNotContain("s3cret");
            }
        }
        // Settings common TLS / SASL client files carry for every client: the fence's producer overrides its own.
        Files.writeString(file, "security.protocol=PLAINTEXT\nrequest.timeout.ms=20000\nretry.backoff.ms=500\nacks=all\n");
        assertThat(run(List.of("snapshots", "list", "--timeout", "1"), file)).as("no broker at :9, not a usage error: " + err)
                .isEqualTo(1);
        assertThat(err.toString()).doesNotContain("cannot be overridden");
        Files.writeString(file, "max.partition.fetch.bytes=1048576\n");
        assertThat(run(COMMANDS.get(0), file)).as("snapshots' reader forces its fetch size").isEqualTo(2);
        assertThat(err.toString()).contains("'max.partition.fetch.bytes' is set by tierroute snapshots itself");

        Files.writeString(file, "value.deserializer=x\ngroup.id=y\nsasl.mechanism=PLAIN\n");
        assertThat(run(List.of("dashboard"), file)).isEqualTo(2);
        assertThat(err.toString()).as("every such key at once, in order").startsWith("--command-config " + file
                + ": 'group.id', 'value.deserializer' are set by the dashboard itself and cannot be overridden");
    }

    @Test
    void aFileThatIsNotUtf8SaysSo(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("latin1.properties");
        Files.write(file, new byte[] {'a', '=', (byte) 0xff, (byte) 0xfe, '\n'});
        assertThat(run(COMMANDS.get(0), file)).isEqualTo(2);
        assertThat(err.toString()).startsWith("--command-config " + file + ": not valid UTF-8 text")
                .doesNotContain("Input length");
    }

    /**
     * A trust or key store the file names that is missing or no file is a usage error naming the property and the
     * file, in every command, before any client is built: fleet printed Kafka's SSL stack trace, the dashboard retried
     * forever logging it, snapshots exited 1.
     */
    @Test
    void aStoreLocationThatCannotBeReadIsAUsageErrorNamingThePropertyAndTheFile(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("no-truststore.jks");
        Path file = dir.resolve("client.properties");
        Files.writeString(file, "security.protocol=SSL\nssl.truststore.location=" + missing + "\nssl.truststore.password=s3cret\n");
        for (List<String> command : COMMANDS) {
            assertThat(run(command, file)).as(command + ": " + err).isEqualTo(2);
            assertThat(err.toString()).as(command.toString())
                    .startsWith("--command-config " + file + ": 'ssl.truststore.location' names " + missing
                            + ", which cannot be read (no such file or directory: " + missing + ")")
                    .doesNotContain("s3cret").doesNotContain("\tat ").doesNotContain("Exception");
        }
        Files.writeString(file, "security.protocol=SSL\nssl.keystore.location=" + dir + "\n");
        assertThat(run(List.of("snapshots", "list"), file)).as(err.toString()).isEqualTo(2);
        assertThat(err.toString()).startsWith("--command-config " + file + ": 'ssl.keystore.location' names " + dir
                + ", which cannot be read (a directory, not a file)");
    }
}
