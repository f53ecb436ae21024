package io.tierroute.fitter.forest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Accuracy on held-out data (issue 3, QRF bullets). Every figure is printed. */
class QuantileForestAccuracyTest {

    private static final double[] QS = {0.5, 0.9, 0.95};

    private static List<OutputRow> train;
    private static List<OutputRow> test;
    private static QuantileForest forest;
    private static long trainMillis;

    @BeforeAll
    static void trainOn50kRows() {
        train = SyntheticOutputs.rows(101, 50_000, true);
        test = SyntheticOutputs.rows(202, 20_000, true);
        long t0 = System.nanoTime();
        forest = new QuantileForestTrainer(ForestConfig.defaults()).fit(train);
        trainMillis = (System.nanoTime() - t0) / 1_000_000;
    }

    @Test
    void modelFor50kRowsIsAtMostOneMiB() {
        byte[] bytes = forest.encode();
        System.out.printf("QRF 50k rows (default config): %d trees, %d leaves, k=%d, %,d bytes, trained in %d ms%n",
            forest.numTrees(), forest.numLeaves(), forest.model().getMaxSamplesPerLeaf(), bytes.length, trainMillis);
        assertThat(bytes.length).isLessThanOrEqualTo(1 << 20);
    }

    @Test
    void coverageWithinTwoPointsAndPinballAtLeast25PercentBelowUnconditional() {
        double[] yTrain = train.stream().mapToDouble(OutputRow::outputTokens).toArray();
        for (double q : QS) {
            double uncond = Pinball.quantile(yTrain, q);
            int covered = 0;
            double lossForest = 0;
            double lossUncond = 0;
            for (OutputRow r : test) {
                double p = forest.predict(r, q);
                if (r.outputTokens() <= p) {
                    covered++;
                }
                lossForest += Pinball.loss(r.outputTokens(), p, q);
                lossUncond += Pinball.loss(r.outputTokens(), uncond, q);
            }
            double coverage = (double) covered / test.size();
            double gain = 1 - lossForest / lossUncond;
            System.out.printf("QRF generated data q=%.2f: coverage %.4f, pinball %.2f vs unconditional %.2f (%.1f %% lower)%n",
                q, coverage, lossForest / test.size(), lossUncond / test.size(), 100 * gain);
            assertThat(coverage).as("coverage at q=%s", q).isBetween(q - 0.02, q + 0.02);
            double heldOut = forest.model().getCalibration().stream().filter(c -> c.getQuantile() == q)
                .findFirst().orElseThrow().getCoverage();
            System.out.printf("QRF generated data q=%.2f: the record's held-out calibration %.4f vs test coverage %.4f%n",
                q, heldOut, coverage);
            assertThat(heldOut).as("held-out calibration at q=%s", q).isBetween(coverage - 0.02, coverage + 0.02);
            assertThat(gain).as("pinball gain at q=%s", q).isGreaterThanOrEqualTo(0.25);
        }
    }

    @Test
    void noSignalNeverMoreThanTwoPercentWorseThanUnconditional() {
        for (long seed = 1; seed <= 2; seed++) {
            List<OutputRow> tr = SyntheticOutputs.rows(300 + seed, 20_000, false);
            List<OutputRow> te = SyntheticOutputs.rows(400 + seed, 10_000, false);
            QuantileForest f = new QuantileForestTrainer(ForestConfig.defaults().withSeed(seed), CalibrationConfig.off()).fit(tr);
            double[] yTrain = tr.stream().mapToDouble(OutputRow::outputTokens).toArray();
            for (double q : QS) {
                double uncond = Pinball.quantile(yTrain, q);
                double lf = 0;
                double lu = 0;
                int covered = 0;
                for (OutputRow r : te) {
                    double p = f.predict(r, q);
                    covered += r.outputTokens() <= p ? 1 : 0;
                    lf += Pinball.loss(r.outputTokens(), p, q);
                    lu += Pinball.loss(r.outputTokens(), uncond, q);
                }
                double ratio = lf / lu;
                System.out.printf("QRF no-signal seed %d q=%.2f: pinball %.3f x unconditional, coverage %.4f%n",
                    seed, q, ratio, (double) covered / te.size());
                assertThat(ratio).as("seed %d q=%s", seed, q).isLessThanOrEqualTo(1.02);
            }
        }
    }

    @Test
    void azureConversationTraceBeatsTheUnconditionalQuantileAndMatchesTwentyBins() throws IOException {
        List<int[]> rows = readAzure();
        Random rnd = new Random(42);
        List<OutputRow> tr = new ArrayList<>();
        List<OutputRow> te = new ArrayList<>();
        for (int[] r : rows) {
            (rnd.nextInt(3) < 2 ? tr : te).add(OutputRow.ofInputOnly(r[0], r[1]));
        }
        QuantileForest f = new QuantileForestTrainer(ForestConfig.defaults(), CalibrationConfig.off()).fit(tr);
        double[] yTrain = tr.stream().mapToDouble(OutputRow::outputTokens).toArray();
        double[] xTrain = tr.stream().mapToDouble(OutputRow::inputTokens).toArray();
        // baseline: 20 equal-frequency bins of input length, each predicting its training q-quantile
        double[] sortedX = xTrain.clone();
        Arrays.sort(sortedX);
        double[] edges = new double[19];
        for (int b = 1; b < 20; b++) {
            edges[b - 1] = sortedX[(int) ((long) b * sortedX.length / 20)];
        }
        System.out.printf("Azure conv trace: %d rows, %d train, %d test; forest %d trees, %d leaves, k=%d, %,d bytes%n",
            rows.size(), tr.size(), te.size(), f.numTrees(), f.numLeaves(), f.model().getMaxSamplesPerLeaf(),
            f.encode().length);
        for (double q : QS) {
            double uncond = Pinball.quantile(yTrain, q);
            List<List<Double>> bins = new ArrayList<>();
            for (int b = 0; b < 20; b++) {
                bins.add(new ArrayList<>());
            }
            for (int i = 0; i < xTrain.length; i++) {
                bins.get(bin(edges, xTrain[i])).add(yTrain[i]);
            }
            double[] binQ = new double[20];
            for (int b = 0; b < 20; b++) {
                double[] v = bins.get(b).stream().mapToDouble(Double::doubleValue).toArray();
                binQ[b] = v.length == 0 ? uncond : Pinball.quantile(v, q);
            }
            double lf = 0;
            double lu = 0;
            double lb = 0;
            int covered = 0;
            for (OutputRow r : te) {
                double p = f.predict(r, q);
                covered += r.outputTokens() <= p ? 1 : 0;
                lf += Pinball.loss(r.outputTokens(), p, q);
                lu += Pinball.loss(r.outputTokens(), uncond, q);
                lb += Pinball.loss(r.outputTokens(), binQ[bin(edges, r.inputTokens())], q);
            }
            double gainForest = 1 - lf / lu;
            double gainBins = 1 - lb / lu;
            System.out.printf("Azure conv q=%.2f: forest %.1f %% below unconditional, 20-bin split %.1f %%, "
                + "forest coverage %.4f%n", q, 100 * gainForest, 100 * gainBins, (double) covered / te.size());
            if (q == 0.5) {
                assertThat(gainForest).isGreaterThanOrEqualTo(0.55);
            } else if (q == 0.9) {
                assertThat(gainForest).isGreaterThanOrEqualTo(0.45);
            }
        }
    }

    private static int bin(double[] edges, double x) {
        int b = 0;
        while (b < edges.length && x >= edges[b]) {
            b++;
        }
        return b;
    }

    /** (ContextTokens, GeneratedTokens) of the Azure conversation trace. */
    static List<int[]> readAzure() throws IOException {
        Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("fitter"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("repository root (a directory with fitter/) above user.dir").isNotNull();
        Path csv = dir.resolve("../shared/traces/azure/AzureLLMInferenceTrace_conv.csv").normalize();
        List<int[]> out = new ArrayList<>();
        List<String> lines = Files.readAllLines(csv);
        for (String line : lines.subList(1, lines.size())) {
            String[] c = line.split(",");
            if (c.length == 3) {
                out.add(new int[] {Integer.parseInt(c[1].trim()), Integer.parseInt(c[2].trim())});
            }
        }
        return out;
    }
}
