package io.tierroute.deploy.local;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One Java process started by the local cluster: {@code java} from this JVM's {@code java.home}, a
 * classpath, JVM flags, a main class and its arguments, stdout and stderr appended to one log file. It
 * outlives the JVM that started it (the output goes to a file, not a pipe), so {@code cluster up} can
 * return and {@code cluster down} stop it later by its pid ({@link #stopPid}).
 *
 * <p>Every child carries {@code -Dtierroute.cluster.marker=<marker>}; {@link #stopPid} checks the
 * marker in the process's command line before it signals it, so a pid the OS has reused for
 * something else is never killed.
 */
public final class ChildJvm {

    /** System property every child carries; its value names the cluster state directory and the role. */
    public static final String MARKER_PROPERTY = "tierroute.cluster.marker";

    /** What to run. */
    public record Spec(String name, List<Path> classpath, List<String> jvmFlags, String mainClass,
                       List<String> args, Path logFile, Path workDir, String marker) {
        public Spec {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("a child JVM needs a name");
            }
            if (classpath == null || classpath.isEmpty()) {
                throw new IllegalArgumentException(name + ": the classpath is empty");
            }
            if (mainClass == null || mainClass.isBlank()) {
                throw new IllegalArgumentException(name + ": no main class");
            }
            classpath = List.copyOf(classpath);
            jvmFlags = List.copyOf(jvmFlags);
            args = List.copyOf(args);
        }
    }

    private final Spec spec;
    private final Process process;

    private ChildJvm(Spec spec, Process process) {
        this.spec = spec;
        this.process = process;
    }

    /** The command line of {@code spec}. */
    static List<String> command(Spec spec) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-D" + MARKER_PROPERTY + "=" + spec.marker());
        cmd.addAll(spec.jvmFlags());
        cmd.add("-cp");
        cmd.add(String.join(File.pathSeparator, spec.classpath().stream().map(Path::toString).toList()));
        cmd.add(spec.mainClass());
        cmd.addAll(spec.args());
        return cmd;
    }

    /** Starts the process; its output is appended to {@code spec.logFile()}. */
    public static ChildJvm start(Spec spec) {
        return start(spec, Map.of());
    }

    /**
     * As {@link #start(Spec)}, with {@code env} added to the environment the child inherits (e.g. a secret its
     * caller made up, so that it need not be set outside).
     */
    public static ChildJvm start(Spec spec, Map<String, String> env) {
        refuseWhileShuttingDown(spec);
        try {
            Files.createDirectories(spec.logFile().toAbsolutePath().getParent());
            Files.createDirectories(spec.workDir());
            ProcessBuilder pb = new ProcessBuilder(command(spec))
                    .directory(spec.workDir().toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(spec.logFile().toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            pb.environment().putAll(env);
            return new ChildJvm(spec, pb.start());
        } catch (IOException e) {
            throw new IllegalStateException("could not start " + spec.name() + ": " + e.getMessage(), e);
        }
    }

    /**
     * A process started while this JVM shuts down would outlive the shutdown hooks that stop its siblings (Ctrl-C
     * during a start-up): none is started then. Adding a hook is refused exactly while the JVM shuts down.
     */
    private static void refuseWhileShuttingDown(Spec spec) {
        Thread probe = new Thread(() -> { });
        try {
            Runtime.getRuntime().addShutdownHook(probe);
            Runtime.getRuntime().removeShutdownHook(probe);
        } catch (IllegalStateException shuttingDown) {
            throw new IllegalStateException("not starting " + spec.name() + ": the JVM is shutting down");
        }
    }

    /**
     * Runs {@code spec} to completion (a tool such as Kafka's StorageTool) and returns its output;
     * fails with that output when it exits non-zero or does not finish within {@code timeout}.
     */
    public static String runToCompletion(Spec spec, Duration timeout) {
        ChildJvm c = start(spec);
        try {
            if (!c.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                c.kill9();
                throw new IllegalStateException(spec.name() + " did not finish within " + timeout.toSeconds()
                        + " s; see " + spec.logFile());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            c.kill9();
            throw new IllegalStateException("interrupted while running " + spec.name(), e);
        }
        String output = readLog(spec.logFile());
        if (c.process.exitValue() != 0) {
            throw new IllegalStateException(spec.name() + " failed with exit code " + c.process.exitValue() + ":\n"
                    + tail(output, 40));
        }
        return output;
    }

    public String name() {
        return spec.name();
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Path logFile() {
        return spec.logFile();
    }

    /**
     * Polls {@code ready} until it holds. Fails, naming the log and quoting its last lines, when the
     * process exits first or {@code timeout} passes.
     */
    public void awaitReady(String what, Duration timeout, BooleanSupplier ready) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException(spec.name() + " exited with code " + process.exitValue() + " before "
                        + what + "; its log " + spec.logFile() + " ends with:\n" + tail(readLog(spec.logFile()), 30));
            }
            if (ready.getAsBoolean()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(spec.name() + " (pid " + pid() + ") did not reach '" + what + "' within "
                        + timeout.toSeconds() + " s; see its log " + spec.logFile() + ", which ends with:\n"
                        + tail(readLog(spec.logFile()), 30));
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + spec.name(), e);
            }
        }
    }

    /** Waits up to {@code timeout} for the process to end: its exit code, or empty while it still runs. */
    public OptionalInt awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? OptionalInt.of(process.exitValue())
                : OptionalInt.empty();
    }

    /** The processes this one has started that are alive now (e.g. the broker of {@code tierroute demo --kafka-port}). */
    public List<ProcessHandle> descendants() {
        return process.descendants().toList();
    }

    /** SIGTERM, then SIGKILL if it has not exited after {@code grace}. Returns once it is gone. */
    public void stop(Duration grace) {
        stop(process.toHandle(), grace);
    }

    /** SIGKILL at once, as a crash would (fault tests); returns once it is gone. */
    public void kill9() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Stops the process {@code pid} if it is alive and carries {@code marker} (see the class comment);
     * returns whether such a process was found.
     */
    public static boolean stopPid(long pid, String marker, Duration grace) {
        Optional<ProcessHandle> h = ProcessHandle.of(pid);
        if (h.isEmpty() || !h.get().isAlive() || !carriesMarker(h.get(), marker)) {
            return false;
        }
        stop(h.get(), grace);
        return true;
    }

    /** Whether {@code pid} is alive and is the child with {@code marker}. */
    public static boolean isOurs(long pid, String marker) {
        Optional<ProcessHandle> h = ProcessHandle.of(pid);
        return h.isPresent() && h.get().isAlive() && carriesMarker(h.get(), marker);
    }

    /** The value of {@link #MARKER_PROPERTY} on the process's command line, if it carries one. */
    static java.util.Optional<String> markerOf(ProcessHandle h) {
        // /proc is exact; ProcessHandle.Info truncates long command lines on some systems
        String prefix = "-D" + MARKER_PROPERTY + "=";
        Path cmdline = Path.of("/proc", Long.toString(h.pid()), "cmdline");
        try {
            if (Files.isReadable(cmdline)) {
                for (String part : new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8).split("\0")) {
                    if (part.startsWith(prefix)) {
                        return java.util.Optional.of(part.substring(prefix.length()));
                    }
                }
                return java.util.Optional.empty();
            }
        } catch (IOException ignored) {
            // fall through to ProcessHandle.Info
        }
        return h.info().arguments().flatMap(a -> java.util.Arrays.stream(a).filter(x -> x.startsWith(prefix))
                .map(x -> x.substring(prefix.length())).findFirst());
    }

    private static boolean carriesMarker(ProcessHandle h, String marker) {
        return markerOf(h).map(marker::equals).orElse(false);
    }

    private static void stop(ProcessHandle h, Duration grace) {
        h.destroy();
        try {
            h.onExit().get(grace.toMillis(), TimeUnit.MILLISECONDS);
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception timeout) {
            // still alive after the grace period: kill it
        }
        h.destroyForcibly();
        try {
            h.onExit().get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            throw new IllegalStateException("pid " + h.pid() + " survived kill -9 for 30 s", e);
        }
    }

    /** The log's last 256 KiB (a long-running JobManager's log grows without bound). */
    static String readLog(Path log) {
        if (!Files.exists(log)) {
            return "";
        }
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(log.toFile(), "r")) {
            long from = Math.max(0, f.length() - 256 * 1024);
            byte[] b = new byte[(int) (f.length() - from)];
            f.seek(from);
            f.readFully(b);
            return new String(b, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(could not read " + log + ": " + e.getMessage() + ")";
        }
    }

    static String tail(String text, int lines) {
        String[] all = text.split("\n");
        int from = Math.max(0, all.length - lines);
        return String.join("\n", java.util.Arrays.copyOfRange(all, from, all.length));
    }
}
