package io.tierroute.sim.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** The {@link SeedSummary} as text tables, one per load, to a stream (stdout) and {@code summary.txt}. */
public final class SummaryTableReporter {

    public static final String FILE = "summary.txt";
    private final PrintStream out;

    public SummaryTableReporter(PrintStream out) {
        this.out = out;
    }

    /** The tables to the stream; to {@code summary.txt} (unless {@code outDir} is null) with how the sweep was run too. */
    public void write(String title, SeedSummary summary, Path outDir) throws IOException {
        String text = render(title, summary);
        out.print(text);
        out.flush();
        if (outDir != null) {
            ReportWriteException.writeString(outDir.resolve(FILE), summary.run().underTitle(text));
        }
    }

    public static String render(String title, SeedSummary summary) {
        List<Long> seeds = summary.seeds();
        StringBuilder sb = new StringBuilder();
        sb.append(title).append(": ").append(seeds.size()).append(seeds.size() == 1 ? " seed (" : " seeds (")
                .append(new SeedList(seeds)).append(")\n");
        sb.append("Over the seeds: geometric mean, min and max. ratio = best other policy / this policy of the same seed\n")
                .append("(> 1: better than every other policy), its geometric mean and min over the seeds, and in how many\n")
                .append("seeds it is below 0.97 (more than 3 % behind). A run where the policy rejected every request has no\n")
                .append("latency and is left out of the means (seeds: how many are in); n/a: no seed left.\n");
        for (String note : summary.notes()) { // before the tables, which these runs' figures are in
            sb.append(TableReporter.NOTE_MARK).append(' ').append(note).append('\n');
        }
        List<SeedSummary.Row> rows = summary.rows();
        // At least the 22 columns the table always had; a longer policy name widens it rather than shifting its row.
        int width = Math.max(22, rows.stream().mapToInt(r -> r.policy().length()).max().orElse(0));
        String line = "%-" + width + "s %-16s %5s %10s %10s %10s %10s %10s %10s";
        String row = "%-" + width + "s %-16s %5d %10s %10s %10s %10s %10s %10s";
        rows.stream().map(SeedSummary.Row::load).distinct().forEach(load -> {
            sb.append(String.format(Locale.ROOT, "%nload %.2f%n", load));
            sb.append(String.format(Locale.ROOT, line, "policy", "metric",
                    "seeds", "geomean", "min", "max", "ratio geo", "ratio min", "< 0.97")).append('\n');
            String last = null;
            for (SeedSummary.Row r : rows) {
                if (r.load() != load) {
                    continue;
                }
                String policy = r.policy().equals(last) ? "" : r.policy();
                last = r.policy();
                sb.append(String.format(Locale.ROOT, row, policy, r.metric(),
                        r.seeds(), TableReporter.format(r.geomean()), TableReporter.format(r.min()),
                        TableReporter.format(r.max()),
                        r.hasRatio() ? ratio(r.ratioGeomean()) : "",
                        r.hasRatio() ? ratio(r.ratioMin()) : "",
                        r.hasRatio() ? r.ratioBelow() + "/" + r.ratioSeeds() : "").stripTrailing()).append('\n');
            }
        });
        List<String> leftOut = summary.leftOut();
        if (!leftOut.isEmpty()) {
            sb.append("\nleft out (every request rejected): ").append(String.join("; ", leftOut)).append('\n');
        }
        return sb.toString();
    }

    private static String ratio(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.3f", v);
    }
}
