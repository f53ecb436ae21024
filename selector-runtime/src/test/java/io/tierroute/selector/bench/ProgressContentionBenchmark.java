package io.tierroute.selector.bench;

import io.tierroute.selector.scheduling.RouteDecision;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

import java.util.concurrent.TimeUnit;

/**
 * Does a stream of {@code tokens} events slow the decisions made beside it (the tracker's per-worker locks, the
 * volatile load views every decision reads)? One thread decides ({@code decide}: preview) or routes
 * ({@code route}: route and finish) while a second thread posts {@code tokens} events for the requests in flight
 * as fast as it can; the control group runs the same first thread beside a thread that only burns CPU, so both
 * groups keep two threads busy on the machine. Compare the first thread's time between the two groups (JMH's
 * score, wall clock, includes waiting on a lock; the {@code [cpu]} lines of {@link ThreadCpu} do not).
 */
@State(Scope.Group)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+UseParallelGC"})
public class ProgressContentionBenchmark {

    @Param({"8", "64", "256"})
    public int workers;

    @Param({"32"})
    public int inFlightPerWorker;

    @Param({"1100000"})
    public long blocks;

    private SelectorFixture fx;
    private InFlightLoad load;

    /** The routing thread's own counter (the event thread never touches it). */
    @State(Scope.Thread)
    public static class Cursor {
        long next;
    }

    @Setup(Level.Trial)
    public void setUp() {
        fx = SelectorFixture.build("production", workers, blocks);
        fx.routeEachOnce();
        load = new InFlightLoad(fx, workers * inFlightPerWorker);
    }

    private RouteDecision decide(Cursor c) {
        return fx.selector.preview(fx.requests[(int) (c.next++ & (fx.requests.length - 1))]);
    }

    private RouteDecision route(Cursor c) {
        long i = c.next++;
        return fx.routeAndRetire(fx.request(i, "c" + i));
    }

    @Benchmark @Group("decideBesideTokens") @GroupThreads(1)
    public RouteDecision decideBesideTokens(Cursor c, ThreadCpu cpu) {
        cpu.ops++;
        return decide(c);
    }

    @Benchmark @Group("decideBesideTokens") @GroupThreads(1)
    public boolean tokensBesideDecide() {
        return load.postTokens();
    }

    @Benchmark @Group("decideBesideSpin") @GroupThreads(1)
    public RouteDecision decideBesideSpin(Cursor c, ThreadCpu cpu) {
        cpu.ops++;
        return decide(c);
    }

    @Benchmark @Group("decideBesideSpin") @GroupThreads(1)
    public void spinBesideDecide() {
        Blackhole.consumeCPU(64);
    }

    @Benchmark @Group("routeBesideTokens") @GroupThreads(1)
    public RouteDecision routeBesideTokens(Cursor c, ThreadCpu cpu) {
        cpu.ops++;
        return route(c);
    }

    @Benchmark @Group("routeBesideTokens") @GroupThreads(1)
    public boolean tokensBesideRoute() {
        return load.postTokens();
    }

    @Benchmark @Group("routeBesideSpin") @GroupThreads(1)
    public RouteDecision routeBesideSpin(Cursor c, ThreadCpu cpu) {
        cpu.ops++;
        return route(c);
    }

    @Benchmark @Group("routeBesideSpin") @GroupThreads(1)
    public void spinBesideRoute() {
        Blackhole.consumeCPU(64);
    }
}
