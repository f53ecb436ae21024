package io.tierroute.sim.bench;

import java.util.List;
import java.util.Locale;

/**
 * The one line a several-seed benchmark prints on stdout as each seed finishes:
 * {@code seed 4 (3/10) done in 41.2 s; best TTFT mean: load 1.00 dynamo 0.412 s, load 1.25 tierroute-fitted 0.533 s}.
 * Plain text, so a long run redirected to a log shows how far it got and where it is heading before the summary.
 */
final class SeedDoneLine {

    private SeedDoneLine() {
    }

    /** {@code reports}: the seed's runs (every policy × load); {@code index} counts from 1 among {@code count} seeds. */
    static String render(long seed, int index, int count, double wallSeconds, List<RunReport> reports) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "seed %d (%d/%d) done in %.1f s; best TTFT mean:",
                seed, index, count, wallSeconds));
        List<Double> loads = reports.stream().map(RunReport::load).distinct().toList();
        for (int i = 0; i < loads.size(); i++) {
            double load = loads.get(i);
            RunReport best = null;
            for (RunReport r : reports) {
                double v = r.get("ttft_mean_s");
                // NaN (every request rejected) never wins; the first of equals does, as in the tables' order.
                if (r.load() == load && !Double.isNaN(v) && (best == null || v < best.get("ttft_mean_s"))) {
                    best = r;
                }
            }
            sb.append(i == 0 ? " " : ", ").append(String.format(Locale.ROOT, "load %.2f ", load))
                    .append(best == null ? "n/a" : best.policy() + " " + TableReporter.format(best.get("ttft_mean_s")) + " s");
        }
        return sb.toString();
    }
}
