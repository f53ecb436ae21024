package io.tierroute.sim.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Checks, before the first run, that a benchmark's reports can be written where they go: a directory named like a
 * report file, or a file named like a seed's directory, would otherwise fail the write after every run had finished.
 */
public final class OutputDirectory {
    /** Where a sweep writes its summaries before it moves them into {@code --out} (a directory of its own). */
    public static final String SUMMARY_STAGING = ".summary-staging";
    /** A sweep's summaries in {@code --out}, beside its seed directories, and the sweep's own {@code run.txt}. */
    private static final List<String> SUMMARY_FILES = List.of(SummaryCsvReporter.FILE, SummaryTableReporter.FILE,
            SummaryHtmlReporter.FILE, RunParameters.FILE);
    private static final Pattern SEED_DIR = Pattern.compile("seed-\\d+");
    /** {@link RequestLog#fileName}'s shape. */
    private static final Pattern REQUEST_LOG = Pattern.compile("requests-.*-load.*\\.csv");

    private OutputDirectory() {}

    /**
     * @param out   the benchmark's {@code --out}
     * @param seeds its seeds: one writes {@link Reporter#FILES} into {@code out}; several write them into
     *              {@link SeedSweep#seedDir} each, and the summaries into {@code out}
     * @throws IllegalArgumentException naming the path in the way
     */
    public static void check(Path out, SeedList seeds) {
        check(out, seeds, List.of());
    }

    /** As {@link #check(Path, SeedList)}, with the request logs ({@link RequestLog#fileName}) each run directory gets. */
    public static void check(Path out, SeedList seeds, List<String> requestLogs) {
        if (out.toString().isEmpty()) {
            throw new IllegalArgumentException("--out must name a directory (got an empty path)");
        }
        if (Files.isSymbolicLink(out) && !Files.exists(out)) {
            String target;
            try {
                target = Files.readSymbolicLink(out).toString();
            } catch (IOException e) {
                target = "a path that cannot be read";
            }
            throw new IllegalArgumentException("--out " + out + " is a symbolic link to " + target
                    + ", which does not exist; create it or choose another --out");
        }
        if (Files.exists(out) && !Files.isDirectory(out)) {
            throw new IllegalArgumentException("--out must be a directory (got " + out + ", an existing file)");
        }
        List<Path> files = new ArrayList<>();
        if (seeds.size() == 1) {
            Reporter.FILES.forEach(f -> files.add(out.resolve(f)));
            requestLogs.forEach(f -> files.add(out.resolve(f)));
        } else {
            SUMMARY_FILES.forEach(f -> files.add(out.resolve(f)));
            Path staging = out.resolve(SUMMARY_STAGING);
            if (Files.exists(staging, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(staging)) { // a file, or a link to none
                throw new IllegalArgumentException("--out " + out + ": " + SUMMARY_STAGING + " is not a directory, where "
                        + "the summary is written before it is moved into place; move it or choose another --out");
            }
            for (long seed : seeds.seeds()) {
                Path dir = SeedSweep.seedDir(out, seed);
                if (Files.exists(dir) && !Files.isDirectory(dir)) {
                    throw new IllegalArgumentException("--out " + out + ": " + dir.getFileName()
                            + " is a file, where seed " + seed + "'s reports go; move it or choose another --out");
                }
                Reporter.FILES.forEach(f -> files.add(dir.resolve(f)));
                requestLogs.forEach(f -> files.add(dir.resolve(f)));
            }
        }
        for (Path f : files) {
            if (Files.isDirectory(f)) {
                throw new IllegalArgumentException("--out " + out + ": " + out.relativize(f)
                        + " is a directory, where a " + (REQUEST_LOG.matcher(f.getFileName().toString()).matches()
                        ? "request log" : "report") + " goes; move it or choose another --out");
            }
        }
    }

    /**
     * Reports in {@code out} that this run will not overwrite, left by an earlier run of another shape: a sweep's
     * summaries and seed directories beside one seed's reports, or one seed's reports, or other seeds' directories,
     * beside a sweep's. Left as they are (they are the user's), but a reader of {@code out} would take them for this
     * run's, so the caller says so. Names relative to {@code out}, sorted.
     */
    public static List<String> leftovers(Path out, SeedList seeds) throws IOException {
        return leftovers(out, seeds, List.of());
    }

    /**
     * As {@link #leftovers(Path, SeedList)}, request logs included: one of another policy or load (or any, when this
     * run writes none) would be read with this run's by a script that globs {@code requests-*.csv}.
     */
    public static List<String> leftovers(Path out, SeedList seeds, List<String> requestLogs) throws IOException {
        if (!Files.isDirectory(out)) {
            return List.of();
        }
        Set<String> ours = new HashSet<>();
        List<String> left = new ArrayList<>();
        if (seeds.size() == 1) {
            ours.addAll(Reporter.FILES);
            ours.addAll(requestLogs);
        } else {
            ours.addAll(SUMMARY_FILES);
            for (long seed : seeds.seeds()) {
                Path dir = SeedSweep.seedDir(out, seed);
                ours.add(dir.getFileName().toString());
                if (Files.isDirectory(dir)) {
                    staleRequestLogs(dir, Set.copyOf(requestLogs), dir.getFileName() + "/", left);
                }
            }
        }
        Set<String> reports = new HashSet<>(Reporter.FILES);
        reports.addAll(SUMMARY_FILES);
        try (Stream<Path> entries = Files.list(out)) {
            entries.map(p -> p.getFileName().toString())
                    .filter(name -> !ours.contains(name))
                    .filter(name -> reports.contains(name) || REQUEST_LOG.matcher(name).matches()
                            || SEED_DIR.matcher(name).matches() && Files.isDirectory(out.resolve(name)))
                    .forEach(name -> left.add(Files.isDirectory(out.resolve(name)) ? name + "/" : name));
        }
        left.sort(null);
        return left;
    }

    private static void staleRequestLogs(Path dir, Set<String> ours, String prefix, List<String> left) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            entries.map(p -> p.getFileName().toString())
                    .filter(name -> REQUEST_LOG.matcher(name).matches() && !ours.contains(name))
                    .forEach(name -> left.add(prefix + name));
        }
    }
}
