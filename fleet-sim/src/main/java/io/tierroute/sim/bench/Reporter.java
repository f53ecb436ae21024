package io.tierroute.sim.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

/** Prints a benchmark's reports somewhere (a table, a CSV, an HTML page). */
public interface Reporter {

    /** Writes {@code reports} (every policy × load of one benchmark titled {@code title}). */
    void write(String title, List<RunReport> reports, Path outDir) throws IOException;

    /** The files {@link #writeAll} writes into its directory. */
    List<String> FILES = List.of(TableReporter.FILE, CsvReporter.FILE, HtmlReporter.FILE, RunParameters.FILE);

    /**
     * A benchmark's outputs in {@code outDir}: the tables (also to {@code console}), results.csv, report.html, and how
     * it was run ({@code run}: in results.txt and report.html, and run.txt for results.csv).
     */
    static void writeAll(PrintStream console, String title, RunParameters run, List<RunReport> reports, Path outDir)
            throws IOException {
        for (Reporter r : List.of(new TableReporter(console, run), new CsvReporter(), new HtmlReporter(run))) {
            r.write(title, reports, outDir);
        }
        run.write(outDir);
    }
}
