package io.tierroute.sim.engine;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.policy.Completion;
import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.policy.WorkerTelemetry;
import io.tierroute.sim.workload.RequestFactory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import static io.tierroute.sim.engine.StepTimeModelTest.ids;
import static org.assertj.core.api.Assertions.assertThat;

class WorkerScenarioTest {

    /** Sends everything to worker 0 and records what it hears. */
    static class Recorder implements RoutingPolicy {
        final List<KvEvent> events = new ArrayList<>();
        final List<WorkerTelemetry> telemetry = new ArrayList<>();
        @Override public String name() { return "recorder"; }
        @Override public String version() { return "test"; }
        @Override public void onKvEvent(KvEvent e, long now) { events.add(e); }
        @Override public void onTelemetry(WorkerTelemetry t) { telemetry.add(t); }
        @Override public int route(SimRequest r, FleetView v, long now) { return 0; }
    }

    private static Completion byId(SimResult r, String id) {
        return r.completions().stream().filter(c -> c.request().id().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void whenKvRunsOutTheLatestAdmittedRequestIsPreemptedAndRecomputed() {
        EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(16).hbmCapacityTokens(128).cpuCapacityTokens(0).build();
        RequestFactory f = new RequestFactory(cfg.model(), 16);
        // Each needs ⌈(48 + 60) / 16⌉ = 7 of the 8 blocks by its end: they cannot both finish resident.
        SimRequest a = f.request("a", 0, 48, ids(3, 0), 60, 60, null);
        SimRequest b = f.request("b", 1, 48, ids(3, 100), 60, 60, null);
        SimResult r = new Simulation(cfg, List.of(a, b)).run(new Recorder(), null);
        assertThat(r.completions()).hasSize(2);
        assertThat(byId(r, "a").preemptions()).isZero();
        assertThat(byId(r, "b").preemptions()).isGreaterThanOrEqualTo(1);
        assertThat(byId(r, "b").outputTokens()).isEqualTo(60);
        assertThat(byId(r, "b").computedTokens()).isGreaterThan(48); // recomputed after preemption
        assertThat(r.workers().get(0).preemptions()).isEqualTo(byId(r, "b").preemptions());
    }

    @Test
    void anEvictedPrefixMovesToCpuAndIsLoadedOverTheLinkOnItsNextHit() {
        EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(16).hbmCapacityTokens(64)
                .cpuCapacityTokens(1600).build();
        RequestFactory f = new RequestFactory(cfg.model(), 16);
        SimRequest first = f.request("first", 0, 49, ids(3, 1), 1, 1, null);
        SimRequest other = f.request("other", 1_000_000, 49, ids(3, 10), 1, 1, null);
        SimRequest again = f.request("again", 2_000_000, 49, ids(3, 1), 1, 1, null);
        Recorder rec = new Recorder();
        SimResult r = new Simulation(cfg, List.of(first, other, again)).run(rec, null);

        Completion c = byId(r, "again");
        assertThat(c.hitTokens()[Tier.CPU.ordinal()]).isEqualTo(48);
        assertThat(c.hitTokens()[Tier.HBM.ordinal()]).isZero();
        long loadMicros = (long) Math.ceil(48 * cfg.bytesPerToken() / 64e3); // 64e9 B/s = 64e3 B/µs
        assertThat(c.tierLoadMicros()).isEqualTo(loadMicros);
        assertThat(c.computedTokens()).isEqualTo(1); // a hit leaves one token to compute
        assertThat(c.ttftMicros()).isEqualTo(loadMicros + StepTimeModel.stepMicros(1, 0, 0));

        assertThat(rec.events).anySatisfy(e -> assertThat(e).isInstanceOfSatisfying(KvEvent.Moved.class,
                m -> assertThat(m.blockHashes()).containsExactly(first.blockHashes()[2], first.blockHashes()[1],
                        first.blockHashes()[0])));
        assertThat(rec.events.get(0)).isInstanceOfSatisfying(KvEvent.Stored.class, s -> {
            assertThat(s.tier()).isEqualTo(Tier.HBM);
            assertThat(s.blockHashes()).containsExactly(first.blockHashes());
        });
        assertThat(r.workers().get(0).linkBytes()).isCloseTo(48 * cfg.bytesPerToken(), org.assertj.core.data.Offset.offset(1.0));
    }

    @Test
    void aPolicyThatAsksForProgressHearsEveryNthDecodedTokenBeforeTheLast() {
        EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(16).cpuCapacityTokens(0).build();
        RequestFactory f = new RequestFactory(cfg.model(), 16);
        SimRequest a = f.request("a", 0, 100, ids(6, 5), 64, 50, null);
        List<String> heard = new ArrayList<>();
        Recorder rec = new Recorder() {
            @Override public int progressEveryTokens() { return 16; }
            @Override public void onTokens(SimRequest r, int worker, int generated, long now) {
                heard.add(r.id() + ":" + generated);
            }
            @Override public void onFinished(SimRequest r, int worker, int outputTokens, long now) {
                heard.add(r.id() + " finished " + outputTokens);
            }
        };
        new Simulation(cfg, List.of(a)).run(rec, null);
        assertThat(heard).containsExactly("a:16", "a:32", "a:48", "a finished 50");
        List<String> none = new ArrayList<>();
        new Simulation(cfg, List.of(a)).run(new Recorder() {
            @Override public void onTokens(SimRequest r, int worker, int generated, long now) { none.add(r.id()); }
        }, null);
        assertThat(none).isEmpty(); // the default asks for none
    }

    @Test
    void twoRequestsWithTheSameNewPrefixArrivingTogetherBothComputeIt() {
        EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(16).cpuCapacityTokens(0).build(); // both fit one step
        RequestFactory f = new RequestFactory(cfg.model(), 16);
        SimRequest a = f.request("a", 0, 100, ids(6, 5), 4, 4, null);
        SimRequest b = f.request("b", 0, 100, ids(6, 5), 4, 4, null);
        SimResult r = new Simulation(cfg, List.of(a, b)).run(new Recorder(), null);
        assertThat(byId(r, "b").hitTokens()[0]).isZero();
        assertThat(byId(r, "b").computedTokens()).isEqualTo(100);
    }

    @Test
    void sameSeedSameInputGivesTheSameRun() {
        EngineConfig cfg = EngineConfig.builder().workers(2).blockSize(16).hbmCapacityTokens(2048).build();
        RequestFactory f = new RequestFactory(cfg.model(), 16);
        List<SimRequest> rs = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            rs.add(f.request("r" + i, i * 7_000L, 200 + (i % 7) * 50, ids(40, (i % 5) * 1000), 64, 10 + i % 50, null));
        }
        SimResult x = new Simulation(cfg, rs).run(new io.tierroute.sim.policy.baseline.RandomPolicy(3), null);
        SimResult y = new Simulation(cfg, rs).run(new io.tierroute.sim.policy.baseline.RandomPolicy(3), null);
        assertThat(x.completions()).hasSize(200);
        assertThat(x.completions().stream().map(c -> c.request().id() + "@" + c.finishMicros() + "/" + c.worker()).toList())
                .isEqualTo(y.completions().stream().map(c -> c.request().id() + "@" + c.finishMicros() + "/" + c.worker()).toList());
        assertThat(x.completions().stream().max(Comparator.comparingLong(Completion::finishMicros)).orElseThrow().finishMicros())
                .isEqualTo(x.endMicros());
    }

    @Test
    void everyRequestFinishesUnderHeavyKvAndLinkPressure() {
        // Tiny HBM, a CPU tier and shared prefixes: loads, evictions and preemptions all happen at once.
        for (long seed = 1; seed <= 20; seed++) {
            java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
            EngineConfig cfg = EngineConfig.builder().workers(2).blockSize(16).hbmCapacityTokens(1024)
                    .cpuCapacityTokens(4096).pcieBytesPerSecond(1e9).maxBatchedTokens(256).maxRunning(8).build();
            RequestFactory f = new RequestFactory(cfg.model(), 16);
            List<SimRequest> rs = new ArrayList<>();
            long t = 0;
            for (int i = 0; i < 150; i++) {
                t += rnd.nextInt(20_000);
                int prompt = 17 + rnd.nextInt(600);
                int out = 1 + rnd.nextInt(200);
                rs.add(f.request("r" + i, t, prompt, ids(prompt / 16, rnd.nextInt(4) * 10_000L), 256, out, null));
            }
            SimResult r = new Simulation(cfg, rs).run(new io.tierroute.sim.policy.baseline.RandomPolicy(seed), null);
            assertThat(r.completions()).as("seed " + seed).hasSize(150 - r.rejected());
            assertThat(r.completions()).as("seed " + seed).allSatisfy(c -> {
                assertThat(c.outputTokens()).isEqualTo(c.request().trueOutputTokensForOracleOnly());
                assertThat(c.ttftMicros()).isPositive();
            });
        }
    }
}
