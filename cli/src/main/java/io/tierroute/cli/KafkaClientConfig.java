package io.tierroute.cli;

import picocli.CommandLine;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Reads a {@code --command-config} file: Kafka client properties (security.protocol, sasl.*, ssl.*
 * ...) applied to every client a command opens, as for Kafka's own tools.
 */
final class KafkaClientConfig {

    private KafkaClientConfig() {}

    /** The properties in {@code file}, or none when it is null; a file that cannot be read is a usage error. */
    static Properties load(Path file, CommandLine cl) {
        Properties props = new Properties();
        if (file == null) {
            return props;
        }
        try (Reader r = Files.newBufferedReader(file)) {
            props.load(r);
        } catch (IOException e) {
            throw new CommandLine.ParameterException(cl, "--command-config " + file + ": cannot read it (" + IoErrors.describe(e) + ")");
        }
        return props;
    }
}
