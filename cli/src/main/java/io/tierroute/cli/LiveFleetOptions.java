package io.tierroute.cli;

import io.tierroute.sim.bench.BenchSpec;
import io.tierroute.sim.live.LiveWorkload;
import io.tierroute.sim.workload.Workloads;
import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The options of the live simulated fleet, shared by {@code demo} and {@code fleet}: what it replays (a trace or a
 * generated workload), on how many workers, how fast and under which scope. {@link #validate} checks them and
 * {@link #load} reads the requests, both before anything starts, so a bad value or a malformed trace line is one
 * message and exit code 2.
 */
final class LiveFleetOptions {

    static final Path DEFAULT_TRACE = Path.of("..", "shared", "traces", "mooncake", "conversation_trace.jsonl");

    @Option(names = "--trace", paramLabel = "FILE",
            description = {"Trace to replay: Mooncake .jsonl or Azure .csv (default: the Mooncake conversation trace, "
                    + "relative to the working directory or the repository:", "  ../shared/traces/mooncake/conversation_trace.jsonl)"})
    Path trace;

    @Option(names = "--workload", paramLabel = "NAME",
            description = "A generated workload instead of the trace: llmd-blog, cpu-overflow, nvme-overflow, agentic, agentic-pcie, chat.")
    String workload;

    @Option(names = "--workers", defaultValue = "8", paramLabel = "N", description = "Simulated engine workers (default ${DEFAULT-VALUE}).")
    int workers;

    static final double MIN_TIME_SCALE = 0.01;
    static final double MAX_TIME_SCALE = 1000;

    @Option(names = "--time-scale", defaultValue = "10", paramLabel = "X",
            description = "Simulated seconds per wall-clock second, in [0.01, 1000] (default ${DEFAULT-VALUE}; 1 = real time).")
    double timeScale;

    @Option(names = "--load", defaultValue = "1", paramLabel = "L",
            description = "Arrival-rate multiplier, in [0.01, 100] (default ${DEFAULT-VALUE}).")
    double load;

    @Option(names = "--limit", defaultValue = "0", paramLabel = "N", description = "Replay only the first N requests (0: all).")
    int limit;

    @Option(names = "--seed", defaultValue = "1", paramLabel = "S",
            description = "Seed of the workload and the selector (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--scope", defaultValue = "default", paramLabel = "S", description = "Parameter scope (default ${DEFAULT-VALUE}).")
    String scope;

    /** The trace replayed after {@link #validate}: {@link #trace}, or the default one when neither it nor a workload was given. */
    private Path resolvedTrace;

    /** Checks the options (the trace readable, not parsed yet); a problem is a {@link CommandLine.ParameterException} naming its flag. */
    void validate(CommandLine cl) {
        if (workers < 1 || workers > BenchSpec.MAX_WORKERS) {
            throw new CommandLine.ParameterException(cl, "--workers must be in [1, " + BenchSpec.MAX_WORKERS + "], got " + workers);
        }
        // Below it a fleet hardly advances (1e-300 never would); above it no fleet keeps pace with the wall clock.
        if (!(timeScale >= MIN_TIME_SCALE && timeScale <= MAX_TIME_SCALE)) {
            throw new CommandLine.ParameterException(cl, "--time-scale must be in [0.01, 1000], got " + timeScale);
        }
        // the same range as bench routing's: outside it a replay is all at once or hardly starts
        if (!(load >= BenchSpec.MIN_LOAD && load <= BenchSpec.MAX_LOAD)) {
            throw new CommandLine.ParameterException(cl, "--load must be in [" + BenchSpec.MIN_LOAD + ", " + BenchSpec.MAX_LOAD
                    + "], got " + load);
        }
        if (limit < 0) {
            throw new CommandLine.ParameterException(cl, "--limit must be >= 0 (0: all), got " + limit);
        }
        if (seed < 0) { // as bench routing's --seed: a run of this fleet replays there with the same seed
            throw new CommandLine.ParameterException(cl, "--seed must be a whole number >= 0, got " + seed);
        }
        // Path.of("") is the working directory: "is a directory" would hide that nothing was named (as bench routing)
        if (trace != null && trace.toString().isEmpty()) {
            throw new CommandLine.ParameterException(cl, "--trace must name a file (got an empty path)");
        }
        if (scope.isBlank()) {
            throw new CommandLine.ParameterException(cl, "--scope must not be empty");
        }
        ScopeName.require(scope, "--scope", cl); // e.g. no '#': a scope the selector's configuration would refuse
        if (trace != null && workload != null) {
            throw new CommandLine.ParameterException(cl, "give --trace or --workload, not both");
        }
        if (workload != null && !Workloads.names().contains(workload)) {
            throw new CommandLine.ParameterException(cl, "unknown --workload '" + workload + "'; known: "
                    + String.join(", ", Workloads.names()));
        }
        Path t = trace;
        if (t == null && workload == null) {
            t = findDefaultTrace();
            if (t == null) {
                throw new CommandLine.ParameterException(cl, noDefaultTrace(defaultTraceCandidates()));
            }
        }
        if (t != null && !Files.isReadable(t)) {
            throw new CommandLine.ParameterException(cl, "--trace " + t + " is not a readable file");
        }
        resolvedTrace = t;
    }

    /**
     * The requests, after {@link #validate}: a malformed trace line is one message naming --trace and exit 2, as in
     * 'bench routing', not a failed start. Last among a command's checks: a long trace takes seconds to read.
     */
    LiveWorkload load(CommandLine cl) {
        Path t = resolvedTrace;
        try {
            return LiveWorkload.load(t, workload, workers, load, limit, seed);
        } catch (IllegalArgumentException | UncheckedIOException e) {
            String m = String.valueOf(e.getMessage());
            if (t != null) { // the trace's messages mostly start with its path and line: name the flag before them
                m = "--trace " + (m.startsWith(t.toString()) ? "" : t + ": ") + m;
            }
            throw new CommandLine.ParameterException(cl, m);
        }
    }

    /** The trace the fleet replays (after {@link #validate}), or null for a generated workload. */
    Path trace() {
        return resolvedTrace;
    }

    /** The first of {@link #defaultTraceCandidates} that is there, or null. */
    static Path findDefaultTrace() {
        return defaultTraceCandidates().stream().filter(Files::isReadable).findFirst().orElse(null);
    }

    /**
     * Where the default trace is looked for, as absolute paths: ../shared/... from the working directory, then from
     * each directory above the jar (cli/target/ in a checkout, so the repository root among them).
     */
    static List<Path> defaultTraceCandidates() {
        Set<Path> tried = new LinkedHashSet<>();
        tried.add(DEFAULT_TRACE.toAbsolutePath().normalize());
        try {
            Path jar = Path.of(LiveFleetOptions.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            for (Path dir = jar.getParent(); dir != null; dir = dir.getParent()) {
                tried.add(dir.resolve(DEFAULT_TRACE).normalize());
            }
        } catch (Exception ignored) {
            // no code source: only the working directory counts
        }
        return List.copyOf(tried);
    }

    /** The refusal when no trace or workload is given and the default trace is at none of {@code tried}. */
    static String noDefaultTrace(List<Path> tried) {
        return "no --trace or --workload given, and the default trace is not there (looked for "
                + String.join(", ", tried.stream().map(Path::toString).toList())
                + "); give --trace FILE (Mooncake .jsonl or Azure .csv) or a generated workload, e.g. --workload agentic";
    }
}
