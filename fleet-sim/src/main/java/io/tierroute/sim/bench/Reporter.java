package io.tierroute.sim.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** Prints a benchmark's reports somewhere (a table, a CSV, an HTML page). */
public interface Reporter {

    /** Writes {@code reports} (every policy × load of one benchmark titled {@code title}). */
    void write(String title, List<RunReport> reports, Path outDir) throws IOException;
}
