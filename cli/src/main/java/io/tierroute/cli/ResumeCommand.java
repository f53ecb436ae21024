package io.tierroute.cli;

import io.tierroute.jobs.JobSettings;
import io.tierroute.jobs.WriterIdentity;

import java.net.URI;
import java.util.Map;

/**
 * The {@code tierroute submit --from-savepoint} line that resumes a fitting job, printed by {@code submit --savepoint},
 * {@code cluster down} and {@code cluster status}: its Kafka, name, consumer group, transactional-id prefix and Kafka
 * client settings' file as the job publishes them ({@link WriterIdentity}, from Flink's {@code GET /jobs/<id>/config};
 * group and prefix only when not the defaults, the file when set); Flink keeps none of its other flags. Values are
 * shell-quoted where they need it (a savepoint under a directory with a space).
 */
final class ResumeCommand {

    private ResumeCommand() {
    }

    /**
     * The command for the job whose published parameters are {@code identity} (empty: unknown) from {@code path}, with
     * {@code --jar} when {@code submit} would not find the job jar here ({@link JobJarFlag}).
     */
    static String of(URI flink, Map<String, String> identity, String path) {
        return of(flink, identity, path, JobJarFlag.forPaste());
    }

    /** As above, {@code jarFlag} being {@code ""} or {@code " --jar PATH"}. */
    static String of(URI flink, Map<String, String> identity, String path, String jarFlag) {
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
}
