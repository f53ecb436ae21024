package io.tierroute.sim.bench;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class ProgressBarTest {

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    private String drive(boolean terminal) {
        ProgressBar bar = new ProgressBar(new PrintStream(bytes, true, StandardCharsets.UTF_8), terminal);
        for (int done = 0; done <= 1000; done += 25) {
            bar.update("random @ load 1.00", done, 1000);
        }
        bar.finish("random @ load 1.00: 1000 requests");
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void withoutATerminalPrintsAPlainLineEveryTenPercent() {
        String out = drive(false);
        assertThat(out).doesNotContain("\r");
        assertThat(out.lines()).hasSize(10)
                .startsWith("random @ load 1.00: 10% 100/1000")
                .endsWith("random @ load 1.00: 1000 requests");
    }

    @Test
    void theLaunchersWordOnStderrBeatsJavasConsoleWhichLooksAtStdinAndStdout() {
        assertThat(ProgressBar.stderrTerminal("false", "/dev/pts/1", true)).as("stdout on a terminal, stderr to a log")
                .isFalse();
        assertThat(ProgressBar.stderrTerminal("true", "pipe:[1]", false)).as("stdout redirected, stderr on a terminal")
                .isTrue();
        assertThat(ProgressBar.stderrTerminal(null, "/tmp/bench.log", true)).as("the jar run directly with 2>log from a "
                + "terminal: file descriptor 2 decides, not the console").isFalse();
        assertThat(ProgressBar.stderrTerminal(null, "/dev/pts/4", false)).isTrue();
        assertThat(ProgressBar.stderrTerminal(null, null, true)).as("off Linux: the console decides").isTrue();
    }

    @Test
    void onATerminalRedrawsOneLine() {
        String out = drive(true);
        assertThat(out.chars().filter(c -> c == '\r').count()).isEqualTo(42);
        assertThat(out).contains("[###############...............]  50%").endsWith("1000 requests" + " ".repeat(67) + System.lineSeparator());
    }

    @Test
    void countsEveryRunAndNamesItsContextInPlainLines() {
        ProgressBar bar = new ProgressBar(new PrintStream(bytes, true, StandardCharsets.UTF_8), false).countRuns(4);
        for (String seed : new String[]{"seed 1", "seed 2"}) {
            bar.context(seed);
            for (String policy : new String[]{"random", "oracle"}) {
                bar.update(policy + " @ load 1.00", 50, 100);
                bar.finish(policy + " @ load 1.00: done");
            }
        }
        assertThat(bytes.toString(StandardCharsets.UTF_8).lines()).containsExactly(
                "[1/4] seed 1: random @ load 1.00: 50% 50/100", "[1/4] seed 1: random @ load 1.00: done",
                "[2/4] seed 1: oracle @ load 1.00: 50% 50/100", "[2/4] seed 1: oracle @ load 1.00: done",
                "[3/4] seed 2: random @ load 1.00: 50% 50/100", "[3/4] seed 2: random @ load 1.00: done",
                "[4/4] seed 2: oracle @ load 1.00: 50% 50/100", "[4/4] seed 2: oracle @ load 1.00: done");
    }
}
