package io.tierroute.sim.bench;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

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

    /** The same label run again (a second warm-up round) prints its own tenths: it fell silent after the first. */
    @Test
    void aLabelRunTwicePrintsItsTenthsTwice() {
        ByteArrayOutputStream again = new ByteArrayOutputStream();
        ProgressBar bar = new ProgressBar(new PrintStream(again, true, StandardCharsets.UTF_8), false);
        for (int pass = 0; pass < 2; pass++) { // no finish() between: a label restarted from 0
            for (int done = 0; done <= 100; done += 5) {
                bar.update("warm-up", done, 100);
            }
        }
        assertThat(again.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("warm-up: 90%"))).hasSize(2);
    }

    /** A warning printed while the bar is drawn starts a line of its own: the frame is blanked first. */
    @Test
    void clearFrameBlanksTheBarOnATerminalOnly() {
        ProgressBar bar = new ProgressBar(new PrintStream(bytes, true, StandardCharsets.UTF_8), true, 40);
        bar.clearFrame();
        assertThat(bytes.size()).as("nothing drawn yet").isZero();
        bar.update("run", 5, 10);
        bytes.reset();
        bar.clearFrame();
        assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo("\r" + " ".repeat(39) + "\r");
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        ProgressBar plain = new ProgressBar(new PrintStream(log, true, StandardCharsets.UTF_8), false);
        plain.update("run", 5, 10);
        log.reset();
        plain.clearFrame();
        assertThat(log.size()).isZero();
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
        assertThat(out).contains("[###############...............]  50%")
                .endsWith("1000 requests" + " ".repeat(46) + System.lineSeparator()); // padded to 79 columns
    }

    /** Every redrawn frame of {@code bar}'s output: the text between one {@code \r} and the next. */
    private static List<String> frames(String out) {
        return Arrays.stream(out.split("\r")).filter(f -> !f.isEmpty() && !f.endsWith(System.lineSeparator())).toList();
    }

    /** On the old code each frame of a sweep was 86 characters or more: on 80 columns every redraw scrolled. */
    @Test
    void everyFrameFitsTheTerminalAndKeepsItsWholeCount() {
        for (int columns : new int[] {80, 60, 40, 24, 12}) {
            bytes.reset();
            ProgressBar bar = new ProgressBar(new PrintStream(bytes, true, StandardCharsets.UTF_8), true, columns)
                    .countRuns(24).context("seed 10");
            for (int done = 0; done <= 12_031; done += 1_000) {
                bar.update("tierroute-claims @ load 2.75", done, 12_031);
            }
            List<String> frames = frames(bytes.toString(StandardCharsets.UTF_8));
            assertThat(frames).as("%d columns", columns).hasSize(13).allSatisfy(f -> {
                assertThat(f.length()).as("%d columns: %s", columns, f).isLessThanOrEqualTo(columns - 1);
                assertThat(f).as("%d columns", columns).matches(".*\\b\\d+/12031");
            });
        }
    }

    @Test
    void theLabelGivesWayFirstThenTheBar() {
        String half = "[" + "#".repeat(14) + ".".repeat(16) + "]  49%  ";
        new ProgressBar(new PrintStream(bytes, true, StandardCharsets.UTF_8), true, 80)
                .update("random @ load 1.00", 6_000, 12_031);
        assertThat(frames(bytes.toString(StandardCharsets.UTF_8))).as("a label that fits is whole, beside the whole bar")
                .containsExactly(half + "random @ load 1.00" + " ".repeat(10) + "  6000/12031");
        bytes.reset();
        ProgressBar bar = new ProgressBar(new PrintStream(bytes, true, StandardCharsets.UTF_8), true, 80)
                .countRuns(24).context("seed 10");
        bar.update("random @ load 1.00", 6_000, 12_031);
        assertThat(frames(bytes.toString(StandardCharsets.UTF_8))).as("the context goes first")
                .containsExactly(half + "[1/24] random @ load 1.00" + " ".repeat(3) + "  6000/12031");
        bytes.reset();
        bar.update("tierroute-claims @ load 2.75", 6_000, 12_031);
        assertThat(frames(bytes.toString(StandardCharsets.UTF_8))).as("then the bar narrows")
                .containsExactly("[" + "#".repeat(11) + ".".repeat(12) + "]  49%  [1/24] tierroute-claims @ load 2.75  6000/12031");
        bytes.reset();
        new ProgressBar(new PrintStream(bytes, true, StandardCharsets.UTF_8), true, 40)
                .update("tierroute-claims @ load 2.75", 6_000, 12_031);
        assertThat(frames(bytes.toString(StandardCharsets.UTF_8))).as("then the label's end")
                .containsExactly("[####......]  49%  tierrou…  6000/12031");
    }

    @Test
    void theBarKeepsItsWidthWhileTheCountGrows() {
        ProgressBar bar = new ProgressBar(new PrintStream(bytes, true, StandardCharsets.UTF_8), true, 80)
                .countRuns(24).context("seed 10");
        for (int done : new int[] {0, 7, 60, 600, 6_000, 12_031}) {
            bar.update("tierroute-claims @ load 2.75", done, 12_031);
        }
        assertThat(frames(bytes.toString(StandardCharsets.UTF_8))).hasSize(6)
                .allSatisfy(f -> assertThat(f.indexOf(']')).isEqualTo(24)).allSatisfy(f -> assertThat(f).hasSize(79));
    }

    @Test
    void theWidthIsColumnsWhenItIsAPositiveNumberElse80() {
        assertThat(ProgressBar.columns("120")).isEqualTo(120);
        assertThat(ProgressBar.columns(" 100 ")).isEqualTo(100);
        assertThat(ProgressBar.columns("2147483647")).as("capped: a frame is built that wide").isEqualTo(1000);
        for (String bad : new String[] {null, "", "wide", "0", "-5", "80.5", "99999999999"}) {
            assertThat(ProgressBar.columns(bad)).as(String.valueOf(bad)).isEqualTo(80);
        }
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

    /** A fitted policy's warm-ups show progress of their own: on a whole trace they were seconds of silence. */
    @Test
    void aFittedPolicysWarmUpShowsItsProgress() {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        ProgressBar bar = new ProgressBar(new PrintStream(bytes, true, StandardCharsets.UTF_8), false);
        BenchSpec spec = new BenchSpec(null, "chat", 300, 2, java.util.List.of(1.0), java.util.List.of("tierroute-fitted"),
                1, null, null, null, 0.5);
        new BenchRunner(new io.tierroute.sim.policy.PolicyRegistry(), bar).run(spec);
        java.util.List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        // Each warm-up round numbered and shown whole: the second was silent under the first one's label.
        for (int round = 1; round <= 2; round++) {
            String warmUp = "tierroute-fitted @ load 1\\.00, warm-up " + round + ": ";
            assertThat(lines).anyMatch(l -> l.matches(warmUp + "10% \\d+/150"))
                    .anyMatch(l -> l.matches(warmUp + "90% \\d+/150"));
        }
        int lastWarmUp = 0;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(", warm-up ")) {
                lastWarmUp = i;
            }
        }
        assertThat(lines.subList(lastWarmUp + 1, lines.size())).as("then the run itself")
                .anyMatch(l -> l.matches("tierroute-fitted @ load 1\\.00: \\d+% \\d+/300"));
    }
}
