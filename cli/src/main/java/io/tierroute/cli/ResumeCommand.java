package io.tierroute.cli;

import io.tierroute.jobs.JobSettings;
import io.tierroute.jobs.WriterIdentity;

import java.net.URI;
import java.util.Map;

/**
 * The {@code tierroute submit --from-savepoint} line that resumes a fitting job, printed by {@code submit --savepoint},
 * {@code cluster down} and {@code cluster status}: its Kafka, name, consumer group and transactional-id prefix as the job
 * publishes them ({@link WriterIdentity}, from Flink's {@code GET /jobs/<id>/config}; the last two only when not the
 * defaults); Flink keeps none of its other flags.
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
        return "tierroute submit --flink " + flink + " --bootstrap "
                + identity.getOrDefault(WriterIdentity.BOOTSTRAP_SERVERS, "HOST:PORT") + jarFlag + " --from-savepoint " + path
                + (jobFlags.length() == 0 ? "" : " --" + jobFlags);
    }

    private static void appendUnlessDefault(StringBuilder flags, String value, String defaultValue, String flag) {
        if (value != null && !value.equals(defaultValue)) {
            flags.append(" --").append(flag).append(' ').append(ShellWords.quote(value));
        }
    }
}
