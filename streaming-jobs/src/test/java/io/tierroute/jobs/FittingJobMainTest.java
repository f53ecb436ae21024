package io.tierroute.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A bad flag: one line and exit code 2 from `java`; an exception (no exit) when Flink calls main. */
class FittingJobMainTest {

    @Test
    void fromTheCommandLineABadFlagIsOneLineOnStderrAndExitCode2() throws Exception {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), FittingJobMain.class.getName(), "--parallelism", "x").start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(err).isEqualTo(2);
        assertThat(out).isEmpty();
        assertThat(err.lines().toList()).containsExactly(
                "tierroute fitting job: --parallelism: 'x' is not an integer (run with --help for every flag)");
    }

    @Test
    void calledByAnotherProgramItThrowsInsteadOfExiting() {
        // As Flink's JobManager calls it: System.exit there would take the cluster down.
        assertThatThrownBy(() -> FittingJobMain.main(new String[] {"--parallelism", "x"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--parallelism").hasNoCause();
    }
}
