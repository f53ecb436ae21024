package io.tierroute.sim.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * {@code results.csv}: one row per policy × load, one column per metric. Counts are integers; a metric
 * the run has none of (NaN, e.g. TTFT when every request was rejected) is an empty cell. The last column, {@code note},
 * is what the figures do not say ({@link RunReport#note()}: a fitted policy that ran without its fit), else empty:
 * the scripts that read this file see it too.
 */
public final class CsvReporter implements Reporter {
    public static final String FILE = "results.csv";


    @Override
    public void write(String title, List<RunReport> reports, Path outDir) throws IOException {
        ReportWriteException.writeString(outDir.resolve(FILE), render(reports));
    }

    public static String render(List<RunReport> reports) {
        StringBuilder sb = new StringBuilder("policy,version,load");
        for (String m : RunReport.METRICS) {
            sb.append(',').append(m);
        }
        sb.append(",note\n");
        for (RunReport r : reports) {
            sb.append(r.policy()).append(',').append('"').append(r.version().replace("\"", "'")).append('"')
                    .append(',').append(r.load());
            for (String m : RunReport.METRICS) {
                sb.append(',').append(cell(m, r.get(m)));
            }
            sb.append(',');
            if (r.note() != null) {
                sb.append('"').append(r.note().replace("\"", "'")).append('"');
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static String cell(String metric, double v) {
        if (Double.isNaN(v)) {
            return "";
        }
        return RunReport.COUNTS.contains(metric) ? Long.toString((long) v) : number(v);
    }

    /** Six significant digits; NaN (no value) is an empty cell. Shared with summary.csv. */
    static String number(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.6g", v);
    }
}
