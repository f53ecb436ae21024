package io.tierroute.sim.workload;

import io.tierroute.sim.policy.SimRequest;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class WorkloadsTest {

    private final RequestFactory f = new RequestFactory("Qwen3-32B", 512);

    @Test
    void everyWorkloadIsDeterministicPerSeedAndSorted() {
        for (String name : Workloads.names()) {
            Workload w = Workloads.named(name);
            List<SimRequest> a = w.generate(f, 7);
            List<SimRequest> b = w.generate(f, 7);
            List<SimRequest> c = w.generate(f, 8);
            assertThat(a).as(name).isNotEmpty();
            assertThat(a.stream().map(r -> r.id() + r.arrivalMicros() + "/" + r.promptTokens()).toList())
                    .as(name).isEqualTo(b.stream().map(r -> r.id() + r.arrivalMicros() + "/" + r.promptTokens()).toList());
            assertThat(a.get(0).arrivalMicros()).as(name).isNotEqualTo(c.get(0).arrivalMicros());
            for (int i = 1; i < a.size(); i++) {
                assertThat(a.get(i).arrivalMicros()).as(name).isGreaterThanOrEqualTo(a.get(i - 1).arrivalMicros());
            }
        }
    }

    @Test
    void llmdBlogRequestsShareExactlyTheirGroupsPrefix() {
        List<SimRequest> rs = SharedPrefixWorkload.llmdBlog().generate(f, 1);
        assertThat(rs).hasSize(6000);
        Map<String, long[]> firstOfGroup = new HashMap<>();
        for (SimRequest r : rs) {
            assertThat(r.promptTokens()).isEqualTo(7200);
            String group = r.id().split("-")[2];
            long[] first = firstOfGroup.putIfAbsent(group, r.blockHashes());
            if (first != null) {
                // 6,000 tokens = 11 full 512-token blocks shared; block 11 mixes prefix and query
                assertThat(java.util.Arrays.copyOf(r.blockHashes(), 11)).isEqualTo(java.util.Arrays.copyOf(first, 11));
                assertThat(r.blockHashes()[11]).isNotEqualTo(first[11]);
            }
        }
        assertThat(firstOfGroup).hasSize(150);
        double meanGapS = rs.get(rs.size() - 1).arrivalMicros() / 1e6 / rs.size();
        assertThat(meanGapS).isBetween(0.09, 0.11); // Poisson at 10 req/s
    }

    /**
     * An agent's system prompt and tool catalog are the same tokens in every session of that agent: their full
     * blocks, the one where the prompt runs into the catalog included, are shared; the block where the catalog runs
     * into the session's own task is not.
     */
    @Test
    void sessionsOfOneAgentShareItsWholeSystemPromptAndCatalog() {
        assertSessionsShare(AgenticWorkload.standard().generate(f, 3), (3000 + 2000) / 512);
        assertSessionsShare(FanOutAgentWorkload.pcieContention().generate(f, 3), (6000 + 4000) / 512);
    }

    /** First steps of sessions whose first block is the same agent's share exactly {@code blocks} full blocks. */
    private static void assertSessionsShare(List<SimRequest> rs, int blocks) {
        Map<Long, long[]> firstOfAgent = new HashMap<>();
        int compared = 0;
        for (SimRequest r : rs) {
            if (r.agent().step() != 0 || r.agent().workflowId().contains(".")) {
                continue; // a session's first step; its sub-agents ("wf3.1") fork the whole prompt of theirs
            }
            long[] first = firstOfAgent.putIfAbsent(r.blockHashes()[0], r.blockHashes());
            if (first != null) {
                assertThat(java.util.Arrays.copyOf(r.blockHashes(), blocks)).as(r.id())
                        .isEqualTo(java.util.Arrays.copyOf(first, blocks));
                if (r.blockHashes().length > blocks && first.length > blocks) { // a short task may not fill it
                    assertThat(r.blockHashes()[blocks]).as(r.id()).isNotEqualTo(first[blocks]);
                }
                compared++;
            }
        }
        assertThat(firstOfAgent).hasSize(8);
        assertThat(compared).isGreaterThan(100);
    }

    @Test
    void agenticStepsGrowTheirContextAndCarryHints() {
        List<SimRequest> rs = AgenticWorkload.standard().generate(f, 3);
        Map<String, SimRequest> last = new HashMap<>();
        int growing = 0;
        for (SimRequest r : rs) {
            assertThat(r.agent()).isNotNull();
            assertThat(r.agent().expectedNextTools()).isNotEmpty();
            assertThat(r.agent().expectedOutputTokens()).isPositive();
            SimRequest prev = last.put(r.agent().workflowId(), r);
            if (prev != null) {
                assertThat(r.agent().step()).isEqualTo(prev.agent().step() + 1);
                assertThat(r.promptTokens()).isGreaterThan(prev.promptTokens());
                int shared = prev.fullBlocks();
                assertThat(java.util.Arrays.copyOf(r.blockHashes(), shared)).isEqualTo(prev.blockHashes());
                growing++;
            }
        }
        assertThat(growing).isGreaterThan(rs.size() / 2);
    }

    @Test
    void fanOutSiblingsShareTheForkedContextAndResumeTogether() {
        FanOutAgentWorkload w = FanOutAgentWorkload.pcieContention();
        List<SimRequest> rs = w.generate(f, 5);
        Map<String, List<SimRequest>> bySession = new HashMap<>();
        for (SimRequest r : rs) {
            String session = r.agent().workflowId().split("\\.")[0];
            bySession.computeIfAbsent(session, k -> new java.util.ArrayList<>()).add(r);
        }
        assertThat(bySession).hasSize(w.sessions());
        int rounds = 0;
        for (List<SimRequest> session : bySession.values()) {
            SimRequest plan = session.stream().filter(r -> !r.agent().workflowId().contains(".")).findFirst().orElseThrow();
            // every round of siblings: same step number, arrivals within a few jitters of each other, and each
            // prompt starts with the orchestrator's whole step-0 prompt (the fork prefix)
            Map<Integer, List<SimRequest>> byRound = new HashMap<>();
            session.stream().filter(r -> r.agent().workflowId().contains("."))
                    .forEach(r -> byRound.computeIfAbsent(r.agent().step(), k -> new java.util.ArrayList<>()).add(r));
            assertThat(byRound.get(0)).hasSizeBetween(w.minFanOut(), w.maxFanOut());
            for (List<SimRequest> round : byRound.values()) {
                long first = round.stream().mapToLong(SimRequest::arrivalMicros).min().orElseThrow();
                long last = round.stream().mapToLong(SimRequest::arrivalMicros).max().orElseThrow();
                assertThat(last - first).isLessThan(3_000_000L);
                for (SimRequest r : round) {
                    assertThat(java.util.Arrays.copyOf(r.blockHashes(), plan.fullBlocks())).isEqualTo(plan.blockHashes());
                    assertThat(r.promptTokens()).isLessThanOrEqualTo(FanOutAgentWorkload.CONTEXT_BUDGET);
                }
                rounds++;
            }
        }
        assertThat(rounds).isGreaterThan(w.sessions() * 4);
    }

    @Test
    void theLoadKnobScalesArrivals() {
        List<SimRequest> rs = ChatWorkload.standard().generate(f, 1);
        List<SimRequest> twice = Workloads.atLoad(rs, 2.0);
        assertThat(twice.get(100).arrivalMicros()).isEqualTo(Math.round(rs.get(100).arrivalMicros() / 2.0));
        assertThat(twice.get(100).blockHashes()).isSameAs(rs.get(100).blockHashes());
    }

    @Test
    void aLoadIsAFiniteNumberAboveZero() {
        List<SimRequest> rs = ChatWorkload.standard().generate(f, 1).subList(0, 10);
        for (double bad : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
            assertThatIllegalArgumentException().isThrownBy(() -> Workloads.atLoad(rs, bad))
                    .withMessageContaining("load must be a finite number > 0");
        }
    }
}
