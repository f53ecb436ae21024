package io.tierroute.sim.bench;

import java.io.IOException;
import java.nio.file.Path;

/**
 * {@code summary.csv} of a several-seed benchmark: one header row, then one row per load × policy × metric
 * ({@link SeedSummary.Row}). A statistic nothing was left to compute from (no seed with a value, or no ratio
 * for throughput) is an empty cell.
 */
public final class SummaryCsvReporter {

    public static final String FILE = "summary.csv";
    public static final String HEADER = "load,policy,metric,seeds,geomean,min,max,ratio_seeds,ratio_geomean,ratio_min,ratio_below_0.97";

    public void write(SeedSummary summary, Path outDir) throws IOException {
        ReportWriteException.writeString(outDir.resolve(FILE), render(summary));
    }

    public static String render(SeedSummary summary) {
        StringBuilder sb = new StringBuilder(HEADER).append('\n');
        for (SeedSummary.Row r : summary.rows()) {
            sb.append(r.load()).append(',').append(r.policy()).append(',').append(r.metric()).append(',')
                    .append(r.seeds()).append(',').append(CsvReporter.number(r.geomean())).append(',').append(CsvReporter.number(r.min()))
                    .append(',').append(CsvReporter.number(r.max())).append(',');
            if (r.hasRatio()) {
                sb.append(r.ratioSeeds()).append(',').append(CsvReporter.number(r.ratioGeomean())).append(',')
                        .append(CsvReporter.number(r.ratioMin())).append(',').append(r.ratioBelow());
            } else {
                sb.append(",,,");
            }
            sb.append('\n');
        }
        return sb.toString();
    }
}
