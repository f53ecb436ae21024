package io.tierroute.cli;

import picocli.CommandLine;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Reads a {@code --command-config} file: Kafka client properties (security.protocol, sasl.*, ssl.*
 * ...) applied to every client a command opens, as for Kafka's own tools.
 */
final class KafkaClientConfig {

    private KafkaClientConfig() {}

    /**
     * The properties in {@code file}, or none when it is null; a file that cannot be read is a usage error, and so is
     * one that sets {@code bootstrap.servers}: the commands that take the file take the address as {@code --bootstrap},
     * and one of the two would be ignored.
     */
    static Properties load(Path file, CommandLine cl) {
        Properties props = new Properties();
        if (file == null) {
            return props;
        }
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            props.load(r);
        } catch (CharacterCodingException e) {
            throw new CommandLine.ParameterException(cl, "--command-config " + file + ": not valid UTF-8 text");
        } catch (IOException e) {
            throw new CommandLine.ParameterException(cl, "--command-config " + file + ": cannot read it (" + IoErrors.describe(e) + ")");
        } catch (IllegalArgumentException e) { // Properties' own words, e.g. "Malformed \\uxxxx encoding."
            throw new CommandLine.ParameterException(cl, "--command-config " + file + ": not a valid properties file ("
                    + e.getMessage() + ")");
        }
        if (props.containsKey("bootstrap.servers")) { // the key only: values may be passwords
            throw new CommandLine.ParameterException(cl, "--command-config " + file
                    + ": 'bootstrap.servers' is --bootstrap's; remove it from the file");
        }
        return props;
    }
}
