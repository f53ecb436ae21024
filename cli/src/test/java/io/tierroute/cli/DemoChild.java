package io.tierroute.cli;

import io.tierroute.deploy.local.ChildJvm;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code tierroute demo} in a JVM of its own, as a user runs it: main class {@link TierrouteCommand} on
 * this test's class path (the shaded jar is packaged after the tests), stdout and stderr in one log,
 * and a {@code java.io.tmpdir} of its own, so a test sees every temporary file the demo leaves behind.
 * {@link #close} kills the demo and every process it started (its Kafka broker) if it is still alive,
 * so a failing test leaves nothing running.
 */
final class DemoChild implements AutoCloseable {

    /** The POSIX signals {@link #ctrlC} may send; a JVM ended by one exits with 128 + its number. */
    enum Signal {
        SIGINT(2), SIGTERM(15);

        final int number;

        Signal(int number) {
            this.number = number;
        }
    }

    private final ChildJvm jvm;
    private final Path tmpDir;
    /** Every process the demo was seen to start (they are re-parented, and so invisible, once it exits). */
    private final Set<ProcessHandle> started = new LinkedHashSet<>();

    private DemoChild(ChildJvm jvm, Path tmpDir) {
        this.jvm = jvm;
        this.tmpDir = tmpDir;
    }

    /** Starts {@code tierroute demo <args>} with its log and temporary directory under {@code dir}. */
    static DemoChild start(Path dir, List<String> args) throws IOException {
        return start(dir, args, java.util.Map.of());
    }

    /** As above, with {@code env} added to the environment the demo inherits. */
    static DemoChild start(Path dir, List<String> args, java.util.Map<String, String> env) throws IOException {
        List<String> all = new ArrayList<>();
        all.add("demo");
        all.addAll(args);
        return command(dir, all, env);
    }

    /** Any {@code tierroute} command line ({@code cluster up --dir …}) in a JVM of its own, as {@link #start} runs the demo. */
    static DemoChild command(Path dir, List<String> all, java.util.Map<String, String> env) throws IOException {
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<Path> classpath = Arrays.stream(cp.split(File.pathSeparator)).filter(s -> !s.isBlank()).map(Path::of).toList();
        // UTF-8 as on a usual terminal: the status line prints α's
        ChildJvm jvm = ChildJvm.start(new ChildJvm.Spec("tierroute-demo", classpath,
                List.of("-Xmx1g", "-Djava.io.tmpdir=" + tmp, "-Dfile.encoding=UTF-8"),
                TierrouteCommand.class.getName(), all, dir.resolve("demo.log"), dir,
                "demo-test-" + UUID.randomUUID()), env);
        return new DemoChild(jvm, tmp);
    }

    long pid() {
        return jvm.pid();
    }

    Path tmpDir() {
        return tmpDir;
    }

    /** stdout and stderr so far. */
    String log() {
        try {
            return Files.exists(jvm.logFile()) ? Files.readString(jvm.logFile(), StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(could not read " + jvm.logFile() + ": " + e.getMessage() + ")";
        }
    }

    /** The log's last {@code chars} characters, for failure messages. */
    String tail(int chars) {
        String l = log();
        return l.substring(Math.max(0, l.length() - chars));
    }

    /**
     * Polls the log until the LAST match of {@code pattern} in it satisfies {@code ok}; returns that match.
     * Fails, quoting the log, when the demo exits first or {@code timeout} passes.
     */
    Matcher awaitLast(Pattern pattern, Predicate<Matcher> ok, Duration timeout, String what) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            remember();
            Matcher last = lastMatch(pattern, log());
            if (last != null && ok.test(last)) {
                return last;
            }
            if (!jvm.isAlive()) {
                throw new AssertionError("the demo exited before " + what + "; its log ends with:\n" + tail(4000));
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the demo did not reach '" + what + "' within " + timeout.toSeconds()
                        + " s; its log ends with:\n" + tail(4000));
            }
            Thread.sleep(200);
        }
    }

    static Matcher lastMatch(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        int from = -1;
        while (m.find()) {
            from = m.start();
        }
        if (from < 0) {
            return null;
        }
        Matcher last = pattern.matcher(text);
        return last.find(from) ? last : null;
    }

    /**
     * Ctrl-C: SIGINT to the demo's pid. A JVM installs no SIGINT handler when it starts with SIGINT ignored
     * (a CI runner without job control may start Maven so), and then only SIGTERM (which runs the same
     * shutdown hooks) reaches it; returns the signal sent.
     */
    Signal ctrlC() throws IOException, InterruptedException {
        Signal s = handlesSigint() ? Signal.SIGINT : Signal.SIGTERM;
        remember();
        if (s == Signal.SIGINT) {
            Process kill = new ProcessBuilder("kill", "-INT", Long.toString(jvm.pid())).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new AssertionError("kill -INT " + jvm.pid() + " failed");
            }
        } else {
            ProcessHandle.of(jvm.pid()).ifPresent(ProcessHandle::destroy);
        }
        return s;
    }

    /** Whether the demo's JVM catches SIGINT (bit 1 of SigCgt in /proc/PID/status). */
    private boolean handlesSigint() throws IOException {
        Path status = Path.of("/proc", Long.toString(jvm.pid()), "status");
        if (!Files.isReadable(status)) {
            return true; // no /proc: assume a shell-started JVM, which does
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("SigCgt:")) {
                return (Long.parseUnsignedLong(line.substring(7).trim(), 16) & (1L << (Signal.SIGINT.number - 1))) != 0;
            }
        }
        return true;
    }

    /** The exit code, or empty if the demo still runs after {@code timeout}. */
    OptionalInt awaitExit(Duration timeout) throws InterruptedException {
        remember();
        return jvm.awaitExit(timeout);
    }

    /** Processes the demo started that are alive now (after it exited: the ones it failed to stop). */
    List<ProcessHandle> startedProcessesAlive() {
        remember();
        return started.stream().filter(ProcessHandle::isAlive).toList();
    }

    /** Files and directories left in the demo's temporary directory. */
    List<Path> leftoverFiles() throws IOException {
        try (Stream<Path> s = Files.walk(tmpDir)) {
            return s.filter(p -> !p.equals(tmpDir)).toList();
        }
    }

    private void remember() {
        if (jvm.isAlive()) {
            started.addAll(jvm.descendants());
        }
    }

    /** Kills the demo and what it started if still alive (the test failed or timed out). */
    @Override
    public void close() {
        remember();
        if (jvm.isAlive()) {
            jvm.kill9();
        }
        for (ProcessHandle p : started) {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
        }
    }
}
