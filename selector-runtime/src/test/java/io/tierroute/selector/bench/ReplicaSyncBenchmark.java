package io.tierroute.selector.bench;

import io.tierroute.selector.scheduling.ReplicaAdmission;
import io.tierroute.selector.scheduling.RouteDecision;
import io.tierroute.selector.sequences.PrefixMarks;
import io.tierroute.selector.sequences.RequestEvent;
import io.tierroute.selector.sync.ReplicaSync;
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

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * What replica sync costs a selector (selector-runtime README, "Replica sync"), over {@link DecisionBenchmark}'s
 * Mooncake fixture at 64 workers. {@code routeAndRetire}: the whole route path and the request's finish, with
 * {@code sync=off} (no outbox, as before) or {@code sync=on} (a {@link ReplicaSync} whose transport only counts what it
 * is handed, as the Kafka publisher's non-blocking offer does): the route thread's share of sync.
 * {@code applyAdmissionAndFinish}: the consumer thread's side, another replica's admission taken into the load and its
 * finish applied.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+UseParallelGC"})
public class ReplicaSyncBenchmark {

    @Param({"off", "on"})
    public String sync;

    @Param({"64"})
    public int workers;

    private SelectorFixture fx;
    private ReplicaSync replicaSync;
    private final LongAdder handed = new LongAdder();
    private long next;
    private long id;

    @Setup(Level.Trial)
    public void setUp() {
        fx = SelectorFixture.build("production", workers, 1_100_000);
        fx.routeEachOnce();
        ReplicaSync.Transport counting = new ReplicaSync.Transport() {
            @Override public void admitted(ReplicaAdmission admission) { handed.increment(); }
            @Override public void event(RequestEvent event) { handed.increment(); }
        };
        replicaSync = new ReplicaSync(fx.selector, counting, System::nanoTime, ReplicaSync.DEFAULT_PENDING_MAX_AGE,
                ReplicaSync.DEFAULT_MAX_PENDING);
        if (sync.equals("on")) {
            replicaSync.install();
        }
    }

    /** The route path and the request's finish, as {@link DecisionBenchmark#routeAndRetire}. */
    @Benchmark
    public RouteDecision routeAndRetire() {
        return fx.routeAndRetire(fx.request(next++, Long.toString(id++)));
    }

    /** Another replica's admission (a 2,048-token prompt, two prefix marks) and its finish, on the consumer's side. */
    @Benchmark
    public boolean applyAdmissionAndFinish() {
        String rid = "other-" + id++;
        boolean admitted = replicaSync.admitted(new ReplicaAdmission(rid, (int) (id % workers), 2048, 256, 512, null,
                PrefixMarks.ofMarks(new long[] {id, id + 1}, 1024), null, List.of()), System.nanoTime());
        replicaSync.event(new RequestEvent(rid, RequestEvent.Type.FINISHED, 100));
        return admitted;
    }
}
