package io.tierroute.cli;

import io.tierroute.selector.config.KafkaClientValues;
import io.tierroute.selector.config.KafkaSettings;
import picocli.CommandLine;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads a {@code --command-config} file: Kafka client properties (security.protocol, sasl.*, ssl.*
 * ...) applied to every client a command opens, as for Kafka's own tools.
 */
final class KafkaClientConfig {

    private KafkaClientConfig() {}

    /**
     * The client settings a command's Kafka clients set themselves: a value in the file would be overridden without a
     * word, or break them ({@code why}). Refused by name, as the selector's configuration refuses them.
     */
    record Reserved(String owner, Set<String> keys, String why) {}

    /** {@code fleet}'s: the selector's Kafka parts' ({@link KafkaSettings#RESERVED_PROPERTIES}) and client.id. */
    static final Reserved FLEET = new Reserved("the fleet", with(KafkaSettings.RESERVED_PROPERTIES, "client.id"),
            KafkaSettings.RESERVED_WHY);

    /**
     * What every client of the snapshot history sets, in {@code snapshots} and the dashboard alike: no group,
     * committed reads from chosen positions, bytes. Only these: the settings the scope's control fence gives its own
     * producer (acks, idempotence, its timeouts) are overridden there quietly, and refusing them would refuse the
     * common TLS / SASL client files that set request.timeout.ms or acks for every client.
     */
    private static final String HISTORY_WHY = "it reads with no group, committed records from positions it chooses, "
            + "and writes in transactions that fence the scope's other writers; records are bytes";

    /** {@code snapshots}': the history's, its client ids, and the fetch size and API timeout (--timeout) it forces. */
    static final Reserved SNAPSHOTS = new Reserved("tierroute snapshots", with(KafkaSettings.RESERVED_PROPERTIES,
            "client.id", "max.partition.fetch.bytes", "default.api.timeout.ms"), HISTORY_WHY + "; --timeout sets its waits");

    /** The dashboard's: the history's (its reader takes a file's client.id and max.partition.fetch.bytes). */
    static final Reserved DASHBOARD = new Reserved("the dashboard", KafkaSettings.RESERVED_PROPERTIES, HISTORY_WHY);

    private static Set<String> with(Set<String> keys, String... more) {
        Set<String> all = new HashSet<>(keys);
        all.addAll(Set.of(more));
        return Set.copyOf(all);
    }

    /**
     * The properties in {@code file} ({@link #read}); one that sets keys of {@code reserved} is a usage error naming
     * them all (the keys only: values may be passwords).
     */
    static Properties load(Path file, Reserved reserved, CommandLine cl) {
        Properties props = read(file, cl);
        Set<String> taken = new TreeSet<>(props.stringPropertyNames());
        taken.retainAll(reserved.keys());
        if (!taken.isEmpty()) {
            throw new CommandLine.ParameterException(cl, "--command-config " + file + ": '" + String.join("', '", taken)
                    + (taken.size() == 1 ? "' is" : "' are") + " set by " + reserved.owner()
                    + " itself and cannot be overridden (" + reserved.why() + ")");
        }
        // As the selector's configuration is checked: a value Kafka refuses is a usage error naming the file and key
        // (it was reported as a failure to read from the broker), a key no client knows a warning (a typo did nothing).
        for (String key : new TreeSet<>(props.stringPropertyNames())) {
            String problem = KafkaClientValues.problem(key, props.getProperty(key));
            if (problem != null) {
                throw new CommandLine.ParameterException(cl, "--command-config " + file + ": '" + key + "': " + problem);
            }
            if (KafkaClientValues.unknown(key)) {
                cl.getErr().println("tierroute: warning: --command-config " + file + ": '" + key + "' is no setting of a "
                        + "Kafka client (a typo?): Kafka ignores it unless a plugin reads it");
            }
        }
        // Else the client's constructor failed on it: fleet printed Kafka's SSL stack trace, the dashboard retried forever.
        unreadableLocation(props).ifPresent(why -> {
            throw new CommandLine.ParameterException(cl, "--command-config " + file + ": " + why);
        });
        return props;
    }

    /**
     * The first {@code *.location} setting of {@code props} (ssl.truststore.location, ssl.keystore.location) whose file
     * cannot be read here, as {@code 'KEY' names FILE, which cannot be read (WHY)}; empty when every one can. The paths
     * only, never the files' passwords.
     */
    static java.util.Optional<String> unreadableLocation(Properties props) {
        for (String key : new TreeSet<>(props.stringPropertyNames())) {
            if (!key.endsWith(".location")) {
                continue;
            }
            String value = props.getProperty(key).strip();
            String why;
            if (value.isEmpty()) {
                why = "names no file";
            } else {
                String reason = IoErrors.unreadableNamed(value);
                why = reason == null ? null : "names " + value + ", which cannot be read (" + reason + ")";
            }
            if (why != null) {
                return java.util.Optional.of("'" + key + "' " + why);
            }
        }
        return java.util.Optional.empty();
    }

    /**
     * The properties in {@code file}, or none when it is null; a file that cannot be read is a usage error, and so is
     * one that sets {@code bootstrap.servers}: the commands that take the file take the address as {@code --bootstrap},
     * and one of the two would be ignored.
     */
    private static Properties read(Path file, CommandLine cl) {
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
