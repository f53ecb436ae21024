package io.tierroute.sim.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code summary.html} of a several-seed benchmark: one self-contained page like {@link HtmlReporter}'s (inline
 * SVG and CSS, no scripts, no CDN). Per load, a table of policies × {@link SeedSummary#METRICS} (geometric mean
 * over the seeds [min–max], the best policy of each column among those with every seed in highlighted) and, per latency, a strip chart of each
 * seed's ratio best other policy / this policy, so the seed-to-seed spread behind a mean shows at a glance;
 * links to every seed's own report. The markup is XHTML-compatible (every element closed, no named entities
 * beyond XML's), so an XML parser can check it.
 */
public final class SummaryHtmlReporter {

    public static final String FILE = "summary.html";
    private static final int W = 600;
    private static final int ROW = 22;
    private static final int TOP = 36;
    private static final int BOTTOM = 34;
    private static final int LEFT = 160; // policy names
    private static final int RIGHT = 120; // geomean and seeds behind

    public void write(String title, SeedSummary summary, Path outDir) throws IOException {
        ReportWriteException.writeString(outDir.resolve(FILE), render(title, summary));
    }

    public static String render(String title, SeedSummary summary) {
        List<Long> seeds = summary.seeds();
        List<Double> loads = summary.loads();
        List<String> policies = summary.policies();
        Map<String, SeedSummary.Row> rows = new HashMap<>();
        summary.rows().forEach(r -> rows.put(key(r.load(), r.policy(), r.metric()), r));
        String seedText = seeds.size() + " seeds (" + new SeedList(seeds) + ")";

        StringBuilder sb = new StringBuilder();
        sb.append("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><meta charset=\"utf-8\"/><title>")
                .append(Html.escape(title + ": " + seedText)).append("</title>")
                .append("<style>body{font:14px sans-serif;margin:24px}svg{border:1px solid #ddd;margin:8px}"
                        + "table{border-collapse:collapse;font:12px monospace}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
                        + "td.policy{text-align:left}td.best{background:#d8f0d8;font-weight:bold}.charts{display:flex;flex-wrap:wrap}"
                        + "ul.seeds{display:flex;flex-wrap:wrap;list-style:none;padding:0}ul.seeds li{margin-right:18px}"
                        + ".caption{font-size:15px}.note{color:#555;max-width:60em}.warn{color:#a00000;max-width:60em}</style></head><body>");
        sb.append("<h1>").append(Html.escape(title)).append("</h1>");
        sb.append("<p class=\"caption\">").append(Html.escape(seedText)).append(" · loads ")
                .append(Html.escape(String.join(", ", loads.stream().map(SummaryHtmlReporter::load).toList())))
                .append(" · policies ").append(Html.escape(String.join(", ", policies))).append("</p>");
        sb.append("<p class=\"note\">Each cell: the geometric mean over the seeds [min–max]; highlighted: the best policy of "
                + "the column (lowest latency, highest throughput) among those with every seed in. A run in which the policy "
                + "rejected every request has no latency and is left out (the cell then says how many seeds are in, and "
                + "the policy does not compete for the highlight). Charts: each seed's ratio best other "
                + "policy / this policy (&gt; 1: better than every other policy of that seed), one dot per seed, the black "
                + "bar at the geometric mean; solid line at 1, dashed line at " + SeedSummary.BEHIND
                + " (more than 3 % behind, shaded). Hover a dot for its seed.</p>");

        sb.append(summary.run().htmlSection());
        for (String note : summary.notes()) { // before the tables, which these runs' figures are in
            sb.append("<p class=\"warn\">").append(Html.escape(TableReporter.NOTE_MARK + " " + note)).append("</p>");
        }
        sb.append("<h2>Per-seed reports</h2><ul class=\"seeds\">");
        for (long seed : seeds) {
            String dir = SeedSweep.seedDir(Path.of(""), seed).toString();
            sb.append("<li><a href=\"").append(Html.escape(dir + "/report.html")).append("\">seed ").append(seed)
                    .append("</a> (<a href=\"").append(Html.escape(dir + "/results.txt")).append("\">txt</a>, <a href=\"")
                    .append(Html.escape(dir + "/results.csv")).append("\">csv</a>)</li>");
        }
        sb.append("</ul>");

        for (double load : loads) {
            sb.append("<h2>load ").append(load(load)).append("</h2>");
            table(sb, load, policies, rows, seeds.size());
            sb.append("<div class=\"charts\">");
            for (String metric : SeedSummary.RATIO_METRICS) {
                strip(sb, summary, load, metric, policies, rows);
            }
            sb.append("</div>");
        }
        List<String> leftOut = summary.leftOut();
        if (!leftOut.isEmpty()) {
            sb.append("<p>Left out (every request rejected): ").append(Html.escape(String.join("; ", leftOut))).append("</p>");
        }
        return sb.append("</body></html>\n").toString();
    }

    /** Policies × metrics at one load: geomean [min–max]; the exact figures of summary.csv in data-/title attributes. */
    private static void table(StringBuilder sb, double load, List<String> policies, Map<String, SeedSummary.Row> rows,
                              int seedCount) {
        sb.append("<table><tr><th>policy</th>");
        for (String metric : SeedSummary.METRICS) {
            sb.append("<th>").append(Html.escape(metric)).append("</th>");
        }
        sb.append("</tr>");
        for (int p = 0; p < policies.size(); p++) {
            String policy = policies.get(p);
            sb.append("<tr><td class=\"policy\"><span style=\"color:").append(HtmlReporter.color(p)).append("\">&#9632;</span> ")
                    .append(Html.escape(policy)).append("</td>");
            for (String metric : SeedSummary.METRICS) {
                SeedSummary.Row r = rows.get(key(load, policy, metric));
                if (r == null) { // the policy did not run at this load
                    sb.append("<td>n/a</td>");
                    continue;
                }
                boolean best = r.seeds() == seedCount && r.geomean() == best(load, metric, policies, rows, seedCount);
                sb.append("<td").append(best ? " class=\"best\"" : "")
                        .append(" data-load=\"").append(r.load()).append("\" data-policy=\"").append(Html.escape(policy))
                        .append("\" data-metric=\"").append(Html.escape(metric))
                        .append("\" data-geomean=\"").append(CsvReporter.number(r.geomean()))
                        .append("\" title=\"geomean ").append(CsvReporter.number(r.geomean()))
                        .append(", min ").append(CsvReporter.number(r.min())).append(", max ").append(CsvReporter.number(r.max()))
                        .append(", ").append(r.seeds()).append(" of ").append(seedCount).append(" seeds\">");
                if (Double.isNaN(r.geomean())) {
                    sb.append("n/a");
                } else {
                    sb.append(TableReporter.format(r.geomean())).append(" [").append(TableReporter.format(r.min()))
                            .append("–").append(TableReporter.format(r.max())).append("]");
                    if (r.seeds() < seedCount) {
                        sb.append(" (").append(r.seeds()).append('/').append(seedCount).append(" seeds)");
                    }
                }
                sb.append("</td>");
            }
            sb.append("</tr>");
        }
        sb.append("</table>");
    }

    /**
     * The best geomean of a column among the policies with a value on every seed: the lowest latency, or the
     * highest throughput; NaN when no such policy has one. A policy left out on some seeds (it rejected every
     * request there) does not compete: its mean is over the seeds it coped with, often the easy ones.
     */
    private static double best(double load, String metric, List<String> policies, Map<String, SeedSummary.Row> rows,
                               int seedCount) {
        boolean lowerIsBetter = SeedSummary.RATIO_METRICS.contains(metric);
        double best = Double.NaN;
        for (String policy : policies) {
            SeedSummary.Row r = rows.get(key(load, policy, metric));
            double v = r == null || r.seeds() < seedCount ? Double.NaN : r.geomean();
            if (!Double.isNaN(v) && (Double.isNaN(best) || (lowerIsBetter ? v < best : v > best))) {
                best = v;
            }
        }
        return best;
    }

    /**
     * One metric at one load: a row per policy with a dot per seed at its ratio best other / policy, on a log axis
     * (2× ahead and 2× behind equally far from 1). Nothing when no policy has a ratio (a single policy).
     */
    private static void strip(StringBuilder sb, SeedSummary summary, double load, String metric, List<String> policies,
                              Map<String, SeedSummary.Row> rows) {
        List<Map<Long, Double>> ratios = policies.stream().map(p -> summary.ratios(load, p, metric)).toList();
        double lo = SeedSummary.BEHIND;
        double hi = 1;
        for (Map<Long, Double> m : ratios) {
            for (double r : m.values()) {
                lo = Math.min(lo, r);
                hi = Math.max(hi, r);
            }
        }
        if (ratios.stream().allMatch(Map::isEmpty)) {
            return;
        }
        double a = Math.log10(lo);
        double b = Math.log10(hi);
        double pad = Math.max((b - a) * 0.06, 0.003);
        Axis x = new Axis(a - pad, b + pad);
        int plotBottom = TOP + ROW * policies.size();
        int h = plotBottom + BOTTOM;
        sb.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">", W, h));
        sb.append(String.format(Locale.ROOT, "<text x=\"8\" y=\"16\" font-weight=\"bold\">%s</text>",
                Html.escape("load " + load(load) + " · " + metric + ": best other / policy, per seed")));
        // behind by more than 3 %: shaded
        sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#fbe3e3\"/>",
                LEFT, TOP, x.px(SeedSummary.BEHIND) - LEFT, plotBottom - TOP));
        List<Long> seeds = summary.seeds();
        for (int p = 0; p < policies.size(); p++) {
            int y = TOP + ROW * p + ROW / 2;
            sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#eee\"/>", LEFT, y, W - RIGHT, y));
            sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\" fill=\"%s\">%s</text>",
                    LEFT - 6, y + 4, HtmlReporter.color(p), Html.escape(policies.get(p))));
            for (Map.Entry<Long, Double> e : ratios.get(p).entrySet()) {
                // seeds at the same ratio would hide each other: three lanes, by the seed's position
                int lane = seeds.indexOf(e.getKey()) % 3 - 1;
                sb.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%d\" r=\"3.5\" fill=\"%s\" fill-opacity=\"0.6\">"
                                + "<title>seed %d: %s</title></circle>",
                        x.px(e.getValue()), y + 4 * lane, HtmlReporter.color(p), e.getKey(), ratio(e.getValue())));
            }
            SeedSummary.Row r = rows.get(key(load, policies.get(p), metric));
            String side = "n/a";
            if (r != null && !Double.isNaN(r.ratioGeomean())) {
                sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\" "
                                + "stroke-width=\"2.5\"><title>geomean %s</title></line>",
                        x.px(r.ratioGeomean()), y - 8, x.px(r.ratioGeomean()), y + 8, ratio(r.ratioGeomean())));
                side = ratio(r.ratioGeomean()) + ", " + r.ratioBelow() + "/" + r.ratioSeeds() + " < " + SeedSummary.BEHIND;
            }
            sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>", W - RIGHT + 8, y + 4,
                    Html.escape(side)));
        }
        sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#444\"/>",
                x.px(1), TOP - 4, x.px(1), plotBottom));
        sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#d62728\" stroke-dasharray=\"4,3\"/>",
                x.px(SeedSummary.BEHIND), TOP - 4, x.px(SeedSummary.BEHIND), plotBottom));
        sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\">1</text>", x.px(1) + 2, TOP - 6));
        sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"end\" fill=\"#d62728\">%s</text>",
                x.px(SeedSummary.BEHIND) - 2, TOP - 6, SeedSummary.BEHIND));
        sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>", LEFT, plotBottom, W - RIGHT, plotBottom));
        for (int i = 0; i <= 4; i++) {
            double v = Math.pow(10, x.min + (x.max - x.min) * i / 4);
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%s</text>",
                    x.px(v), plotBottom + 13, String.format(Locale.ROOT, "%.3g", v)));
        }
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s</text>",
                (LEFT + W - RIGHT) / 2, h - 6, Html.escape("best other / policy (log scale; > 1: ahead)")));
        sb.append("</svg>");
    }

    /** A log10 axis from {@code min} to {@code max} onto the plot's width. */
    private record Axis(double min, double max) {
        double px(double ratio) {
            return LEFT + (Math.log10(ratio) - min) / (max - min) * (W - RIGHT - LEFT);
        }
    }

    private static String ratio(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    private static String load(double load) {
        return String.format(Locale.ROOT, "%.2f", load);
    }

    private static String key(double load, String policy, String metric) {
        return load + "\u0000" + policy + "\u0000" + metric;
    }
}
