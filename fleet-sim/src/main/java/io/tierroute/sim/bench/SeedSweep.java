package io.tierroute.sim.bench;

import io.tierroute.sim.engine.EngineConfig;
import io.tierroute.sim.policy.SimRequest;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A benchmark at several seeds: each seed's runs write the single-seed reports ({@code results.txt},
 * {@code results.csv}, {@code report.html}, {@code run.txt}, request logs if asked) to {@code <out>/seed-<N>/}, and feed a
 * {@link SeedSummary}, which records how the sweep was run (the first seed's parameters, every seed named). A trace's requests are the same at every seed (only the policies' seeds change);
 * a generated workload is generated again from each seed.
 */
public final class SeedSweep {

    private final BenchRunner runner;
    private final ProgressBar progress; // may be null
    private final boolean requestLogs;
    private PrintStream seedLines; // null: none
    private SeedListener afterEachSeed; // null: none
    private String commandLine; // null: not run from one

    /** Told after every seed but the last, with the summary of the seeds done so far. */
    @FunctionalInterface
    public interface SeedListener {
        void seedDone(SeedSummary soFar, int done, int total) throws IOException;
    }

    public SeedSweep(BenchRunner runner, ProgressBar progress, boolean requestLogs) {
        this.runner = runner;
        this.progress = progress;
        this.requestLogs = requestLogs;
    }

    /** Prints one {@link SeedDoneLine} to {@code out} as each seed finishes (the CLI's stdout). */
    public SeedSweep seedLines(PrintStream out) {
        this.seedLines = out;
        return this;
    }

    /** The command line as given, which each seed's reports record ({@link RunParameters}). */
    public SeedSweep commandLine(String commandLine) {
        this.commandLine = commandLine;
        return this;
    }

    /** Calls {@code l} after every seed but the last (the CLI rewrites the summary files: an interrupted sweep keeps them). */
    public SeedSweep afterEachSeed(SeedListener l) {
        this.afterEachSeed = l;
        return this;
    }

    /** Where the reports of {@code seed} go. */
    public static Path seedDir(Path out, long seed) {
        return out.resolve("seed-" + seed);
    }

    /**
     * Runs {@code spec} at every seed of {@code seeds} (its own seed is ignored) and writes each seed's reports,
     * titled {@code title} and the seed ("..., seed 3"), under {@code out}.
     *
     * @param firstBase the requests of the first seed at load 1, already loaded by the caller (who checks them)
     */
    public SeedSummary run(BenchSpec spec, SeedList seeds, List<SimRequest> firstBase, String title, Path out)
            throws IOException {
        if (progress != null) {
            progress.countRuns(seeds.size() * spec.loads().size() * spec.policies().size());
        }
        SeedSummary summary = new SeedSummary();
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        int index = 0;
        for (long seed : seeds.seeds()) {
            long start = System.nanoTime();
            index++;
            BenchSpec at = spec.withSeed(seed);
            List<SimRequest> base = seed == seeds.first() || spec.trace() != null
                    ? firstBase : BenchRunner.requests(at, BenchRunner.engine(at));
            Path dir = Files.createDirectories(seedDir(out, seed));
            if (requestLogs) {
                runner.requestLogs(dir);
            }
            if (progress != null) {
                progress.context("seed " + seed);
            }
            List<RunReport> reports = runner.run(at, base);
            EngineConfig engine = BenchRunner.engine(at);
            List<String> notes = BenchRunner.optionNotes(at, engine);
            RunParameters run = RunParameters.of(commandLine, at, engine, base.size(), notes);
            if (index == 1) {
                summary.run(RunParameters.sweep(commandLine, at, seeds, engine, base.size(), notes));
            }
            // Titled with the seed: a seed's results.txt or report.html opened alone must say which seed it is.
            Reporter.writeAll(quiet, title + ", seed " + seed, run, reports, dir);
            summary.add(seed, reports);
            if (seedLines != null) {
                seedLines.println(SeedDoneLine.render(seed, index, seeds.size(), (System.nanoTime() - start) / 1e9, reports));
                seedLines.flush();
            }
            if (afterEachSeed != null && index < seeds.size()) {
                afterEachSeed.seedDone(summary, index, seeds.size());
            }
        }
        if (progress != null) {
            progress.context(null);
        }
        return summary;
    }
}
