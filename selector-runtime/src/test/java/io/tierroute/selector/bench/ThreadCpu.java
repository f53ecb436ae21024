package io.tierroute.selector.bench;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;

/**
 * The benchmark thread's own CPU time per operation, printed per trial as {@code [cpu] ...} lines: on a machine
 * shared with other jobs, JMH's wall-clock score also counts the time the thread waited for a core, which
 * swamps a ratio between benchmarks run minutes apart. The body counts its operations in {@link #ops}.
 * Not counted: GC threads (see {@code -prof gc} for allocation) and time blocked on a lock.
 */
@State(Scope.Thread)
public class ThreadCpu {

    private static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

    /** Operations of the current iteration; the benchmark method increments it. */
    public long ops;
    private long startNanos;
    private final List<Double> perIteration = new ArrayList<>();

    @Setup(Level.Iteration)
    public void start() {
        ops = 0;
        startNanos = MX.getCurrentThreadCpuTime();
    }

    @TearDown(Level.Iteration)
    public void stop(IterationParams iteration) {
        if (iteration.getType() == IterationType.MEASUREMENT && ops > 0) {
            perIteration.add((double) (MX.getCurrentThreadCpuTime() - startNanos) / ops);
        }
    }

    @TearDown(Level.Trial)
    public void report(BenchmarkParams params) {
        double sum = 0;
        StringBuilder each = new StringBuilder();
        for (double v : perIteration) {
            sum += v;
            each.append(each.length() == 0 ? "" : ", ").append(String.format("%.0f", v));
        }
        String name = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
        System.out.printf("%n[cpu] %s %s: mean %.0f ns CPU per op (iterations: %s)%n",
                name, params.getParam("workers"), sum / perIteration.size(), each);
    }
}
