package io.tierroute.fitter.forest;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Generated training rows whose conditional output-length distribution depends on the features
 * (known truth): log-normal with median 40 + 0.08·isl·f(model) + tool offset, a spread that depends
 * on the expected tool and the previous step's output, and nothing from lora, maxTokens (never
 * binding here) or prefix group. {@link #noSignal} draws the target independently of the features.
 */
final class SyntheticOutputs {

    static final String[] MODELS = {"llama-8b", "llama-70b", "qwen-32b"};
    static final String[] TOOLS = {"sql_query", "web_search", "code_exec"};

    private SyntheticOutputs() {}

    static List<OutputRow> rows(long seed, int n, boolean signal) {
        SplittableRandom r = new SplittableRandom(seed);
        List<OutputRow> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int isl = (int) Math.round(Math.exp(Math.log(50) + r.nextDouble() * Math.log(8000.0 / 50)));
            int m = r.nextInt(MODELS.length);
            int toolIdx = r.nextInt(TOOLS.length + 1) - 1;  // -1 = no tool
            String tool = toolIdx < 0 ? null : TOOLS[toolIdx];
            Integer step = r.nextDouble() < 0.3 ? null : r.nextInt(6);
            Integer prev = step == null || step == 0 ? null : 20 + r.nextInt(800);
            String lora = r.nextDouble() < 0.5 ? null : "lora-" + r.nextInt(4);
            int maxTokens = 1 << (15 + r.nextInt(3)); // never binding: no atom at the cap
            Integer hint = r.nextDouble() < 0.8 ? null : 64 * (1 + r.nextInt(16));
            long group = r.nextInt(300);
            double median;
            double sigma;
            if (signal) {
                double modelFactor = new double[] {0.5, 1.0, 2.0}[m];
                double toolAdd = toolIdx < 0 ? 0 : new double[] {30, 250, 120}[toolIdx];
                median = 40 + 0.08 * isl * modelFactor + toolAdd;
                sigma = toolIdx < 0 ? 0.25 : new double[] {0.2, 0.6, 0.9}[toolIdx];
                if (prev != null && prev > 600) {
                    sigma += 0.3;
                }
            } else {
                median = 300;
                sigma = 0.6;
            }
            int y = (int) Math.round(median * Math.exp(sigma * gaussian(r)));
            y = Math.min(y, maxTokens);
            out.add(new OutputRow(isl, MODELS[m], lora, step, tool, maxTokens, hint, group, prev, y));
        }
        return out;
    }

    static double gaussian(SplittableRandom r) {
        double u1 = r.nextDouble();
        double u2 = r.nextDouble();
        return Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2);
    }
}
