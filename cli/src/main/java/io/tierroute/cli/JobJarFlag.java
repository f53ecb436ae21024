package io.tierroute.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The {@code --jar} of a {@code tierroute submit} line printed for the operator to paste ({@code cluster up}'s next
 * step, the resume lines of {@code submit --savepoint}, {@code cluster down} and {@code cluster status}): none when
 * {@code submit} without {@code --jar} finds the job jar here ({@link SubmitCommand#defaultJar}: in a source checkout),
 * else a placeholder, since Flink does not tell which jar a job was started from. Outside a checkout a line without it
 * failed ("the job jar streaming-jobs/target/... does not exist").
 */
final class JobJarFlag {

    /** Stands for the job jar, which the operator has to name. */
    static final String PLACEHOLDER = "PATH/TO/tierroute-streaming-jobs-job.jar";

    private JobJarFlag() {
    }

    /** {@code ""} or {@code " --jar PLACEHOLDER"}, for this working directory and installation. */
    static String forPaste() {
        try {
            return forPaste(SubmitCommand.defaultJar());
        } catch (IllegalStateException severalJars) {
            return " --jar " + PLACEHOLDER; // submit would refuse to choose: the pasted line must name one
        }
    }

    /** As above, {@code defaultJar} being what {@code submit} would take without {@code --jar}. */
    static String forPaste(Path defaultJar) {
        return Files.isRegularFile(defaultJar) ? "" : " --jar " + PLACEHOLDER;
    }
}
