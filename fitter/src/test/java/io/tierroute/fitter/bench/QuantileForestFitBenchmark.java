package io.tierroute.fitter.bench;

import io.tierroute.fitter.forest.ForestConfig;
import io.tierroute.fitter.forest.OutputRow;
import io.tierroute.fitter.forest.QuantileForest;
import io.tierroute.fitter.forest.QuantileForestTrainer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One {@link QuantileForestTrainer#fit} of the default forest (50 trees × 64 leaves, k = 48) on
 * {@code rows} generated rows whose output length depends on the features (the accuracy test's
 * generator: log-normal, median 40 + 0.08·isl·f(model) + tool offset). Single shot: a fit takes
 * seconds. The trainer grows its trees on one thread per available processor (and Smile's split
 * search uses the common fork-join pool), so the figure is wall time on all cores of the machine
 * (the run header prints the core count); for one core add
 * {@code -jvmArgsAppend -XX:ActiveProcessorCount=1}.
 *
 * <p>Run: {@code MODULE=fitter MVN_ARGS=-o bench/run-jmh.sh QuantileForestFit -wi 2 -i 3 -f 1}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class QuantileForestFitBenchmark {

    @Param({"50000"})
    public int rows;

    private List<OutputRow> data;
    private QuantileForestTrainer trainer;

    @Setup(Level.Trial)
    public void setup() {
        data = generate(11, rows);
        trainer = new QuantileForestTrainer(ForestConfig.defaults());
    }

    @Benchmark
    public QuantileForest fit() {
        return trainer.fit(data);
    }

    static List<OutputRow> generate(long seed, int n) {
        String[] models = {"llama-8b", "llama-70b", "qwen-32b"};
        String[] tools = {"sql_query", "web_search", "code_exec"};
        SplittableRandom r = new SplittableRandom(seed);
        List<OutputRow> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int isl = (int) Math.round(Math.exp(Math.log(50) + r.nextDouble() * Math.log(8000.0 / 50)));
            int m = r.nextInt(models.length);
            int toolIdx = r.nextInt(tools.length + 1) - 1;
            Integer step = r.nextDouble() < 0.3 ? null : r.nextInt(6);
            Integer prev = step == null || step == 0 ? null : 20 + r.nextInt(800);
            String lora = r.nextDouble() < 0.5 ? null : "lora-" + r.nextInt(4);
            int maxTokens = 1 << (15 + r.nextInt(3));
            Integer hint = r.nextDouble() < 0.8 ? null : 64 * (1 + r.nextInt(16));
            long group = r.nextInt(300);
            double median = 40 + 0.08 * isl * new double[] {0.5, 1.0, 2.0}[m]
                + (toolIdx < 0 ? 0 : new double[] {30, 250, 120}[toolIdx]);
            double sigma = (toolIdx < 0 ? 0.25 : new double[] {0.2, 0.6, 0.9}[toolIdx])
                + (prev != null && prev > 600 ? 0.3 : 0);
            double g = Math.sqrt(-2 * Math.log(1 - r.nextDouble())) * Math.cos(2 * Math.PI * r.nextDouble());
            int y = Math.min((int) Math.round(median * Math.exp(sigma * g)), maxTokens);
            out.add(new OutputRow(isl, models[m], lora, step, toolIdx < 0 ? null : tools[toolIdx], maxTokens, hint,
                group, prev, y));
        }
        return out;
    }
}
