package io.tierroute.selector.bench;

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

import java.util.concurrent.TimeUnit;

/**
 * A {@code tokens} event while the fleet is full: every worker holds its {@code maxInFlight} requests (all
 * decoding) and one more request waits in the admission queue. An event can free a slot only by finishing a
 * request or taking one off the waiting count; compare with {@link ProgressEventBenchmark#tokensEvent}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+UseParallelGC"})
public class QueuedProgressBenchmark {

    @Param({"8", "64", "256"})
    public int workers;

    /** Also each worker's maxInFlight, so the fleet is full. */
    @Param({"32"})
    public int inFlightPerWorker;

    @Param({"1100000"})
    public long blocks;

    private InFlightLoad load;

    @Setup(Level.Trial)
    public void setUp() {
        SelectorFixture fx = SelectorFixture.build("production", workers, blocks, inFlightPerWorker);
        load = new InFlightLoad(fx, workers * inFlightPerWorker);
        if (fx.selector.route(fx.request(0, "queued")).isDone() || fx.selector.queueLength() != 1) {
            throw new IllegalStateException("the fleet should be full with one request queued");
        }
        System.out.printf("%n[fixture] %d workers, %d requests in flight, %d queued%n",
                workers, fx.selector.inflight().size(), fx.selector.queueLength());
    }

    @Benchmark
    public boolean tokensEventWhileQueued(ThreadCpu cpu) {
        cpu.ops++;
        return load.postTokens();
    }
}
