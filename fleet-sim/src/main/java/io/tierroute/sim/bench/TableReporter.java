package io.tierroute.sim.bench;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** A fixed-width text table per load, to a stream (stdout by default) and {@code results.txt}. */
public final class TableReporter implements Reporter {
    public static final String FILE = "results.txt";


    private final PrintStream out;

    public TableReporter(PrintStream out) {
        this.out = out;
    }

    @Override
    public void write(String title, List<RunReport> reports, Path outDir) throws java.io.IOException {
        String text = render(title, reports);
        out.print(text);
        if (outDir != null) {
            java.nio.file.Files.writeString(outDir.resolve(FILE), text);
        }
    }

    public static String render(String title, List<RunReport> reports) {
        StringBuilder sb = new StringBuilder();
        sb.append(title).append('\n');
        reports.stream().map(RunReport::load).distinct().forEach(load -> {
            sb.append(String.format(Locale.ROOT, "%nload %.2f%n", load));
            sb.append(String.format(Locale.ROOT, "%-22s", "policy"));
            for (String m : RunReport.METRICS) {
                sb.append(String.format(Locale.ROOT, " %12s", m));
            }
            sb.append('\n');
            for (RunReport r : reports) {
                if (r.load() != load) {
                    continue;
                }
                sb.append(String.format(Locale.ROOT, "%-22s", r.policy()));
                for (String m : RunReport.METRICS) {
                    sb.append(String.format(Locale.ROOT, " %12s", format(r.get(m))));
                }
                sb.append('\n');
            }
        });
        return sb.toString();
    }

    /** A metric for the text and HTML tables; NaN (the run has none) is "n/a". */
    static String format(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e9) {
            return String.format(Locale.ROOT, "%d", (long) v);
        }
        return Math.abs(v) >= 100 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.3f", v);
    }
}
