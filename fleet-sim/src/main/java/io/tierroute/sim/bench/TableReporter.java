package io.tierroute.sim.bench;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * A fixed-width text table per load, to a stream (stdout by default) and {@code results.txt}; under each, the notes of
 * its runs ({@link RunReport#note()}), their rows marked {@link #NOTE_MARK}. The file's header, under the title, is how
 * the benchmark was run ({@link RunParameters}); the stream, where the user just typed the command, gets the tables only.
 */
public final class TableReporter implements Reporter {
    public static final String FILE = "results.txt";

    private final PrintStream out;
    private final RunParameters run;

    public TableReporter(PrintStream out, RunParameters run) {
        this.out = out;
        this.run = run;
    }

    @Override
    public void write(String title, List<RunReport> reports, Path outDir) throws java.io.IOException {
        out.print(render(title, reports));
        if (outDir != null) {
            ReportWriteException.writeString(outDir.resolve(FILE), render(title, run, reports));
        }
    }

    /** The title, how the benchmark was run, then the tables. */
    public static String render(String title, RunParameters run, List<RunReport> reports) {
        return run.underTitle(render(title, reports));
    }

    /** Each column as wide as its widest cell (header or value), so a long policy or metric name shifts nothing. */
    public static String render(String title, List<RunReport> reports) {
        String[] metrics = RunReport.METRICS;
        int policyWidth = "policy".length();
        int[] widths = new int[metrics.length];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = Math.max(MIN_WIDTH, metrics[i].length());
        }
        for (RunReport r : reports) {
            policyWidth = Math.max(policyWidth, policyCell(r).length());
            for (int i = 0; i < widths.length; i++) {
                widths[i] = Math.max(widths[i], format(r.get(metrics[i])).length());
            }
        }
        StringBuilder sb = new StringBuilder();
        sb.append(title).append('\n');
        final int pw = policyWidth;
        reports.stream().map(RunReport::load).distinct().forEach(load -> {
            sb.append(String.format(Locale.ROOT, "%nload %.2f%n", load));
            sb.append(pad("policy", -pw));
            for (int i = 0; i < widths.length; i++) {
                sb.append(' ').append(pad(metrics[i], widths[i]));
            }
            sb.append('\n');
            for (RunReport r : reports) {
                if (r.load() != load) {
                    continue;
                }
                sb.append(pad(policyCell(r), -pw));
                for (int i = 0; i < widths.length; i++) {
                    sb.append(' ').append(pad(format(r.get(metrics[i])), widths[i]));
                }
                sb.append('\n');
            }
            for (RunReport r : reports) {
                if (r.load() == load && r.note() != null) {
                    sb.append(NOTE_MARK).append(' ').append(r.policy()).append(": ").append(r.note()).append('\n');
                }
            }
        });
        return sb.toString();
    }

    /** Follows the name of a policy whose run has a {@link RunReport#note()}; the note is under its load's table. */
    static final String NOTE_MARK = "*";

    /** The policy's name, marked when the row must not be read at face value (the note says why). */
    static String policyCell(RunReport r) {
        return r.note() == null ? r.policy() : r.policy() + NOTE_MARK;
    }

    /** The narrowest a metric column gets: the width the table has always had for short names. */
    private static final int MIN_WIDTH = 12;

    /** Right-aligned to {@code width}, or left-aligned to {@code -width}. */
    static String pad(String s, int width) {
        return String.format(Locale.ROOT, "%" + width + "s", s);
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
