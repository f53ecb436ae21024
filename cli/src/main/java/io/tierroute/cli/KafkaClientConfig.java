package io.tierroute.cli;

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

    /**
     * {@code fleet}'s: the selector's Kafka parts' ({@link KafkaSettings#RESERVED_PROPERTIES}), client.id, and what the
     * engines' producer (FleetPublisher) sets: acks=all, its linger and batch size.
     */
    static final Reserved FLEET = new Reserved("the fleet",
            with(KafkaSettings.RESERVED_PROPERTIES, "client.id", "acks", "linger.ms", "batch.size"),
            KafkaSettings.RESERVED_WHY + "; the engines' producer waits for every replica (acks=all) and batches its own way");

    /**
     * What the snapshot history's readers and writers set, in {@code snapshots} and the dashboard alike: no group,
     * committed reads from chosen positions (SnapshotsKafka, dashboards' HistoryReader), and the scope's control fence,
     * an idempotent transactional producer with its own timeouts (dashboards' ControlFence).
     */
    private static final Set<String> HISTORY_CLIENTS = with(KafkaSettings.RESERVED_PROPERTIES, "client.id",
            "allow.auto.create.topics", "default.api.timeout.ms", "acks", "enable.idempotence", "linger.ms",
            "max.block.ms", "request.timeout.ms", "delivery.timeout.ms", "transaction.timeout.ms");

    private static final String HISTORY_WHY = "it reads with no group, committed records from positions it chooses, "
            + "and writes in transactions that fence the scope's other writers; records are bytes";

    /** {@code snapshots}': the history's, and the 16 MiB fetch size its reader forces. */
    static final Reserved SNAPSHOTS = new Reserved("tierroute snapshots",
            with(HISTORY_CLIENTS, "max.partition.fetch.bytes"), HISTORY_WHY + "; --timeout sets its waits");

    /** The dashboard's: the history's (its reader takes a file's max.partition.fetch.bytes). */
    static final Reserved DASHBOARD = new Reserved("the dashboard", HISTORY_CLIENTS, HISTORY_WHY);

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
        return props;
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
