package io.tierroute.cli;

import io.tierroute.deploy.local.FlinkRestClient;
import io.tierroute.jobs.JobSettings;
import io.tierroute.jobs.WriterIdentity;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The {@code tierroute submit --from-savepoint} line that resumes a fitting job, printed by {@code submit --savepoint},
 * {@code cluster down} and {@code cluster status}: its Kafka, name, consumer group, transactional-id prefix and Kafka
 * client settings' file as the job publishes them ({@link WriterIdentity}, from Flink's {@code GET /jobs/<id>/config};
 * group and prefix only when not the defaults, the file when set), then the job arguments Flink shows of its own
 * ({@link #jobArguments}): {@code --parallelism}, and {@code --state-backend} and {@code --checkpoint-interval} when not
 * the defaults. Flink keeps none of its other flags (its program arguments are not in its REST API). Values are
 * shell-quoted where they need it (a savepoint under a directory with a space).
 */
final class ResumeCommand {

    /** A job whose config could not be read: no published parameters, no parallelism. */
    static final FlinkRestClient.JobConfig UNKNOWN = new FlinkRestClient.JobConfig(Map.of(), OptionalInt.empty());

    private ResumeCommand() {
    }

    /**
     * The command for the job whose published parameters are {@code identity} (empty: unknown) from {@code path}, with
     * {@code --jar} when {@code submit} would not find the job jar here ({@link JobJarFlag}); {@code jobArguments} go
     * after the published ones ({@link #jobArguments}).
     */
    static String of(URI flink, Map<String, String> identity, List<String> jobArguments, String path) {
        return of(flink, identity, jobArguments, path, JobJarFlag.forPaste());
    }

    /** As above, {@code jarFlag} being {@code ""} or {@code " --jar PATH"}. */
    static String of(URI flink, Map<String, String> identity, List<String> jobArguments, String path, String jarFlag) {
        StringBuilder jobFlags = new StringBuilder();
        String name = identity.get(WriterIdentity.JOB_NAME);
        if (name != null) {
            jobFlags.append(" --job-name ").append(ShellWords.quote(name));
        }
        // Resumed under another group or prefix, the job would read from a new group's offsets and fence nobody.
        JobSettings defaults = JobSettings.builder().build();
        appendUnlessDefault(jobFlags, identity.get(WriterIdentity.GROUP_ID), defaults.groupId(), "group-id");
        appendUnlessDefault(jobFlags, identity.get(WriterIdentity.TRANSACTIONAL_ID_PREFIX),
                defaults.transactionalIdPrefix(), "transactional-id-prefix");
        appendUnlessDefault(jobFlags, identity.get(WriterIdentity.KAFKA_PROPERTIES), null, "kafka-properties");
        for (String a : jobArguments) {
            jobFlags.append(' ').append(ShellWords.quote(a));
        }
        String bootstrap = identity.get(WriterIdentity.BOOTSTRAP_SERVERS);
        return "tierroute submit --flink " + flink + " --bootstrap " + (bootstrap == null ? "HOST:PORT"
                : ShellWords.quote(bootstrap)) + jarFlag + " --from-savepoint " + ShellWords.quote(path)
                + (jobFlags.length() == 0 ? "" : " --" + jobFlags);
    }

    private static void appendUnlessDefault(StringBuilder flags, String value, String defaultValue, String flag) {
        if (value != null && !value.equals(defaultValue)) {
            flags.append(" --").append(flag).append(' ').append(ShellWords.quote(value));
        }
    }

    /**
     * The job arguments of fitting job {@code jobId} that Flink shows besides its published parameters, for
     * {@link #of}: {@code --parallelism} from {@code config} (its {@code job-parallelism}, which the job sets from its
     * {@code --parallelism}; given even when the default, which another jar may change), and from
     * {@code GET /jobs/<id>/checkpoints/config} ({@link #checkpointArguments}) its state backend and checkpoint interval.
     * None for a job that is not a fitting job or whose parameters are not shown (an INITIALIZING job's placeholder
     * shows parallelism 1 whatever the job set); without the checkpoint settings when they cannot be read. Resumed
     * without them, the job ran at the default parallelism (refused on a cluster with fewer slots), and on the heap
     * backend, which cannot restore a RocksDB job's checkpoint.
     */
    static List<String> jobArguments(FlinkRestClient rest, String jobId, FlinkRestClient.JobConfig config) {
        if (!WriterIdentity.FITTING_JOB.equals(config.userConfig().get(WriterIdentity.ROLE))) {
            return List.of();
        }
        List<String> args = new ArrayList<>();
        config.parallelism().ifPresent(p -> args.addAll(List.of("--parallelism", Integer.toString(p))));
        try {
            args.addAll(checkpointArguments(rest.checkpointConfig(jobId)));
        } catch (FlinkRestClient.FlinkRestException e) {
            // not shown (e.g. no checkpoint coordinator yet): the line says what is known, nothing in their place
        }
        return args;
    }

    /** Flink's names ({@code state_backend}) of the job's {@code --state-backend} values. */
    private static final Map<String, String> STATE_BACKENDS = Map.of("HashMapStateBackend", "hashmap",
            "EmbeddedRocksDBStateBackend", "rocksdb");

    /**
     * {@code --state-backend} and {@code --checkpoint-interval} of a job with checkpoint settings {@code c}, each when
     * known and not the default. A backend of another name is not one the job's flag sets: left out. An interval of the
     * default {@code --transaction-timeout} or more is left out too, since the job refuses it with the default timeout,
     * and the timeout it ran with is not shown.
     */
    static List<String> checkpointArguments(FlinkRestClient.CheckpointConfig c) {
        JobSettings defaults = JobSettings.builder().build();
        List<String> args = new ArrayList<>();
        String backend = STATE_BACKENDS.get(c.stateBackend());
        if (backend != null && !backend.equals(defaults.stateBackend())) {
            args.addAll(List.of("--state-backend", backend));
        }
        if (c.intervalMs() > 0 && c.intervalMs() != defaults.checkpointInterval().toMillis()
                && c.intervalMs() < defaults.transactionTimeout().toMillis()) {
            args.addAll(List.of("--checkpoint-interval", duration(c.intervalMs())));
        }
        return args;
    }

    /** {@code 5m}, {@code 2s} or {@code 500ms}: as the job's flags take durations ({@link JobSettings#parseDuration}). */
    static String duration(long ms) {
        return ms % 60_000 == 0 ? ms / 60_000 + "m" : ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
}
