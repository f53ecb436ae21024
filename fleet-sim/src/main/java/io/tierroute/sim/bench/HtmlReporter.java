package io.tierroute.sim.bench;

import org.HdrHistogram.HistogramIterationValue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * {@code report.html}: one self-contained page (inline SVG and CSS, no scripts, no CDN) with how the benchmark was run
 * ({@link RunParameters}), a TTFT CDF per load (log time axis), load–latency curves (mean and p99 TTFT, mean JCT) per
 * policy, each policy in its own {@link SeriesStyle}, and the tables, each followed by its runs' notes
 * ({@link RunReport#note()}).
 */
public final class HtmlReporter implements Reporter {
    public static final String FILE = "report.html";

    private static final int W = 560;
    private static final int H = 320;
    private static final int PAD = 48;

    private final RunParameters run;

    public HtmlReporter(RunParameters run) {
        this.run = run;
    }

    @Override
    public void write(String title, List<RunReport> reports, Path outDir) throws IOException {
        ReportWriteException.writeString(outDir.resolve(FILE), render(title, run, reports));
    }

    public static String render(String title, List<RunReport> reports) {
        return render(title, new RunParameters(List.of()), reports);
    }

    public static String render(String title, RunParameters run, List<RunReport> reports) {
        List<String> policies = reports.stream().map(RunReport::policy).distinct().toList();
        List<Double> loads = reports.stream().map(RunReport::load).distinct().sorted().toList();
        StringBuilder sb = new StringBuilder();
        sb.append("<!doctype html><html><head><meta charset=\"utf-8\"><title>").append(Html.escape(title)).append("</title>")
                .append("<style>body{font:14px sans-serif;margin:24px}svg{border:1px solid #ddd;margin:8px}"
                        + "table{border-collapse:collapse;font:12px monospace}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
                        + ".legend span{display:inline-block;margin-right:12px}.legend svg{border:0;margin:0 4px 0 0}"
                        + ".note{color:#a00000;max-width:60em}</style></head><body>");
        sb.append("<h1>").append(Html.escape(title)).append("</h1>");
        sb.append(run.htmlSection());
        sb.append("<div class=\"legend\">");
        for (int i = 0; i < policies.size(); i++) {
            sb.append("<span style=\"color:").append(color(i)).append("\">").append(SeriesStyle.of(i).swatch())
                    .append(Html.escape(policies.get(i))).append("</span>");
        }
        sb.append("</div><h2>TTFT CDF</h2>");
        for (double load : loads) {
            List<List<double[]>> series = new ArrayList<>();
            for (String p : policies) {
                series.add(reports.stream().filter(r -> r.policy().equals(p) && r.load() == load).findFirst()
                        .map(HtmlReporter::cdf).orElse(List.of()));
            }
            sb.append(svg(String.format(Locale.ROOT, "load %.2f: P(TTFT ≤ x)", load), series, true, "TTFT (s)", "fraction"));
        }
        if (loads.size() > 1) {
            sb.append("<h2>Load–latency</h2>");
            sb.append(curve(reports, policies, loads, "TTFT mean (s)", r -> r.get("ttft_mean_s")));
            sb.append(curve(reports, policies, loads, "TTFT p99 (s)", r -> r.get("ttft_p99_s")));
            sb.append(curve(reports, policies, loads, "JCT mean (s)", r -> r.get("jct_mean_s")));
        }
        sb.append("<h2>Tables</h2>");
        for (double load : loads) {
            sb.append(String.format(Locale.ROOT, "<h3>load %.2f</h3><table><tr><th>policy</th><th>version</th>", load));
            for (String m : RunReport.METRICS) {
                sb.append("<th>").append(m).append("</th>");
            }
            sb.append("</tr>");
            for (RunReport r : reports) {
                if (r.load() == load) {
                    sb.append("<tr><td style=\"text-align:left\">").append(Html.escape(TableReporter.policyCell(r))).append("</td><td style=\"text-align:left\">")
                            .append(Html.escape(r.version())).append("</td>");
                    for (String m : RunReport.METRICS) {
                        sb.append("<td>").append(TableReporter.format(r.get(m))).append("</td>");
                    }
                    sb.append("</tr>");
                }
            }
            sb.append("</table>");
            for (RunReport r : reports) {
                if (r.load() == load && r.note() != null) {
                    sb.append("<p class=\"note\">").append(Html.escape(TableReporter.NOTE_MARK + " " + r.policy() + ": "
                            + r.note())).append("</p>");
                }
            }
        }
        return sb.append("</body></html>\n").toString();
    }

    private static String curve(List<RunReport> reports, List<String> policies, List<Double> loads, String label,
                                ToDoubleFunction<RunReport> f) {
        List<List<double[]>> series = new ArrayList<>();
        for (String p : policies) {
            List<double[]> pts = new ArrayList<>();
            for (double load : loads) {
                // NaN (no request completed at that load) is no point, not a point at 0.
                reports.stream().filter(r -> r.policy().equals(p) && r.load() == load).findFirst()
                        .map(f::applyAsDouble).filter(v -> !Double.isNaN(v))
                        .ifPresent(v -> pts.add(new double[] {load, v}));
            }
            series.add(pts);
        }
        return svg(label + " vs load", series, false, "load", label);
    }

    /** (TTFT seconds, cumulative fraction) points of a run's TTFT histogram. */
    private static List<double[]> cdf(RunReport r) {
        List<double[]> pts = new ArrayList<>();
        long total = r.ttftHistogram().getTotalCount();
        if (total == 0) {
            return pts;
        }
        for (HistogramIterationValue v : r.ttftHistogram().percentiles(5)) {
            pts.add(new double[] {Math.max(1e-3, v.getValueIteratedTo() / 1e6), v.getPercentile() / 100.0});
        }
        return pts;
    }

    private static String svg(String title, List<List<double[]>> series, boolean logX, String xLabel, String yLabel) {
        double minX = Double.MAX_VALUE, maxX = -Double.MAX_VALUE, maxY = 0;
        for (List<double[]> s : series) {
            for (double[] p : s) {
                double x = logX ? Math.log10(p[0]) : p[0];
                minX = Math.min(minX, x);
                maxX = Math.max(maxX, x);
                maxY = Math.max(maxY, p[1]);
            }
        }
        if (minX == Double.MAX_VALUE) {
            return "";
        }
        if (maxX <= minX) {
            maxX = minX + 1;
        }
        maxY = logX ? 1.0 : (maxY <= 0 ? 1 : maxY * 1.05);
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\"><text x=\"%d\" y=\"16\">%s</text>",
                W, H, PAD, Html.escape(title)));
        sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>", PAD, H - PAD, W - 10, H - PAD));
        sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>", PAD, 24, PAD, H - PAD));
        for (int i = 0; i <= 4; i++) {
            double xv = minX + (maxX - minX) * i / 4;
            double yv = maxY * i / 4;
            // Centred under its tick; the last one ends at its tick, so a wide value stays inside the chart.
            sb.append(String.format(Locale.ROOT, "<text x=\"%.0f\" y=\"%d\" font-size=\"10\" text-anchor=\"%s\">%s</text>",
                    px(xv, minX, maxX), H - PAD + 14, i == 4 ? "end" : "middle",
                    TableReporter.format(logX ? Math.pow(10, xv) : xv)));
            sb.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"%.0f\" font-size=\"10\">%s</text>", py(yv, maxY) + 3,
                    TableReporter.format(yv)));
        }
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>", W / 2, H - 8, Html.escape(xLabel)));
        for (int i = 0; i < series.size(); i++) {
            List<double[]> s = series.get(i);
            if (s.isEmpty()) {
                continue;
            }
            StringBuilder path = new StringBuilder();
            for (double[] p : s) {
                double x = logX ? Math.log10(p[0]) : p[0];
                path.append(String.format(Locale.ROOT, "%.1f,%.1f ", px(x, minX, maxX), py(p[1], maxY)));
            }
            sb.append("<polyline fill=\"none\" stroke-width=\"1.5\" ").append(SeriesStyle.of(i).stroke()).append(" points=\"")
                    .append(path).append("\"><title>").append(Html.escape(yLabel)).append("</title></polyline>");
        }
        return sb.append("</svg>").toString();
    }

    private static double px(double x, double minX, double maxX) {
        return PAD + (x - minX) / (maxX - minX) * (W - PAD - 10);
    }

    private static double py(double y, double maxY) {
        return H - PAD - y / maxY * (H - PAD - 24);
    }

    /** The colour of the {@code i}-th policy ({@link SeriesStyle}); the summary page uses the same. */
    static String color(int i) {
        return SeriesStyle.of(i).color();
    }
}
