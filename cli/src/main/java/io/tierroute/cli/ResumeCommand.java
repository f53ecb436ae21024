package io.tierroute.cli;

import io.tierroute.jobs.WriterIdentity;

import java.net.URI;
import java.util.Map;

/**
 * The {@code tierroute submit --from-savepoint} line that resumes a fitting job, printed by {@code submit --savepoint},
 * {@code cluster down} and {@code cluster status}: its Kafka and name as the job publishes them ({@link WriterIdentity}, from Flink's
 * {@code GET /jobs/<id>/config}); Flink keeps none of its other flags.
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
        String name = identity.get(WriterIdentity.JOB_NAME);
        return "tierroute submit --flink " + flink + " --bootstrap "
                + identity.getOrDefault(WriterIdentity.BOOTSTRAP_SERVERS, "HOST:PORT") + jarFlag + " --from-savepoint " + path
                + (name == null ? "" : " -- --job-name " + ShellWords.quote(name));
    }
}
