package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.PrefixMatch;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.sequences.LoadView;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cost model moves in the right direction for every input (DESIGN.md §3): random parameters and
 * states, one input changed at a time. A failure prints the seed and the case.
 */
class CostModelPropertiesTest {

    private static final long SEED = 20261130L;
    private static final int CASES = 5_000;
    private static final int BLOCK = 16;
    private static final double[] BANDWIDTH = {0, 64e9, 7e9, 25e9};

    /** A random but valid state for one worker. */
    private static final class Case {
        CostParameters p;
        int isl, predicted;
        int[] cumBlocks = new int[Tier.COUNT];
        double[] rho = new double[Tier.COUNT];
        long sumD, quadTwice, kvUsed, kvCap;
        int waiting;
        boolean lastWorker;
        double idleSeconds;
        int expectedTools, toolHits;

        static Case random(SplittableRandom r) {
            Case c = new Case();
            c.p = CostParameters.builder()
                    .alphaP(r.nextDouble(0.01, 10)).alphaP2(r.nextDouble(0, 1e-3)).alphaD(r.nextDouble(0, 100))
                    .alphaD2(r.nextDouble(0, 0.01)).alphaT(r.nextDouble(0.1, 3)).alphaHo(r.nextDouble(0, 1000))
                    .qSlack(r.nextInt(0, 8)).alphaWf(r.nextDouble(0, 1e4)).lambda(r.nextDouble(1e-4, 1))
                    .alphaWf2(r.nextDouble(0, 1e4)).rhoThreshold(r.nextDouble(0.5, 0.99)).build();
            c.isl = r.nextInt(1, 20_000);
            c.predicted = r.nextInt(1, 2_000);
            int blocks = c.isl / BLOCK;
            int depth = 0;
            for (int t = 0; t < Tier.COUNT; t++) {
                depth = Math.min(blocks, depth + r.nextInt(0, blocks + 1) / Tier.COUNT);
                c.cumBlocks[t] = depth;
                c.rho[t] = t == 0 ? 0 : r.nextDouble(0, c.p.rhoThreshold());
            }
            c.sumD = r.nextLong(0, 100_000);
            c.quadTwice = r.nextLong(0, 1_000_000_000L);
            c.kvCap = r.nextLong(1, 1_000_000);
            c.kvUsed = r.nextLong(0, c.kvCap + 1);
            c.waiting = r.nextInt(0, 50);
            c.lastWorker = r.nextBoolean();
            c.idleSeconds = r.nextDouble(0, 600);
            c.expectedTools = r.nextInt(0, 5);
            c.toolHits = c.expectedTools == 0 ? 0 : r.nextInt(0, c.expectedTools + 1);
            return c;
        }

        CostTerms score() {
            PrefixMatch m = new PrefixMatch(1);
            m.reset(isl / BLOCK);
            for (int t = 0; t < Tier.COUNT; t++) {
                m.set(0, t, cumBlocks[t]);
            }
            ParameterSet.Builder ps = ParameterSet.builder(1).cost(p);
            for (int t = 0; t < Tier.COUNT; t++) {
                ps.rho(0, Tier.ofOrdinal(t), rho[t]);
            }
            RouteContext ctx = RouteContext.of(1, isl, predicted, BLOCK, 262_144)
                    .expectedTools(expectedTools).toolHits(0, toolHits);
            if (lastWorker) {
                ctx.lastStep(0, idleSeconds);
            }
            CostTerms out = new CostTerms();
            CostModel.score(ctx, 0, m, new LoadView(0, waiting, sumD, quadTwice, kvUsed, kvCap), BANDWIDTH, ps.build(), out);
            return out;
        }
    }

    @FunctionalInterface
    private interface Change {
        /** Changes one input of {@code c}; returns false when the change does not apply to this case. */
        boolean apply(Case c, SplittableRandom r);
    }

    /** For every case, {@code change} must not decrease ({@code sign = +1}) or increase (−1) the total. */
    private static void check(String what, int sign, Change change) {
        SplittableRandom r = new SplittableRandom(SEED);
        for (int i = 0; i < CASES; i++) {
            Case c = Case.random(r);
            double before = c.score().total;
            if (!change.apply(c, r)) {
                continue;
            }
            double after = c.score().total;
            assertThat(Double.isFinite(after)).as("finite cost, seed %d case %d", SEED, i).isTrue();
            assertThat(sign * (after - before))
                    .as("%s: seed %d case %d: %.3f → %.3f", what, SEED, i, before, after)
                    .isGreaterThanOrEqualTo(-1e-6 * Math.max(1, Math.abs(before)));
        }
    }

    @Test
    void moreOfThePromptOnHbmCostsLess() {
        check("more HBM hit", -1, (c, r) -> {
            int blocks = c.isl / BLOCK;
            if (c.cumBlocks[0] >= blocks) return false;
            int hbm = c.cumBlocks[0] + r.nextInt(1, blocks - c.cumBlocks[0] + 1);
            for (int t = 0; t < Tier.COUNT; t++) {
                c.cumBlocks[t] = Math.max(c.cumBlocks[t], hbm);
            }
            return true;
        });
    }

    @Test
    void aPrefixOnAFasterTierCostsLessThanOnASlowerOne() {
        check("CPU → HBM", -1, (c, r) -> {
            if (c.cumBlocks[1] == c.cumBlocks[0]) return false;
            c.cumBlocks[0] = c.cumBlocks[1]; // the CPU segment moves to HBM
            return true;
        });
    }

    @Test
    void higherLinkUtilisationBelowTheCutOffCostsMore() {
        // Across the cut-off the cost may fall: the tier then counts as recompute (next test).
        check("higher ρ", +1, (c, r) -> {
            int t = r.nextInt(1, Tier.COUNT);
            c.rho[t] = r.nextDouble(c.rho[t], c.p.rhoThreshold());
            return true;
        });
    }

    @Test
    void pastTheCutOffATierIsAMissAndPaysRecompute() {
        SplittableRandom r = new SplittableRandom(SEED);
        for (int i = 0; i < CASES; i++) {
            Case c = Case.random(r);
            int cpuTokens = Math.min(c.cumBlocks[1] * BLOCK, c.isl) - Math.min(c.cumBlocks[0] * BLOCK, c.isl);
            if (cpuTokens == 0) continue;
            c.rho[1] = Math.nextUp(c.p.rhoThreshold());
            CostTerms t = c.score();
            assertThat(t.cutOffTier).as("seed %d case %d", SEED, i).isEqualTo(Tier.CPU.ordinal());
            assertThat(t.hitTokens).isEqualTo(Math.min(c.cumBlocks[0] * BLOCK, c.isl));
            assertThat(t.tierTransferUs[1]).isZero();
            assertThat(t.tierTransferUs[2]).isZero(); // slower segments after the cut are unusable too
        }
    }

    @Test
    void moreDecodeWorkInFlightCostsMore() {
        check("more in-flight decode", +1, (c, r) -> {
            c.sumD += r.nextLong(1, 10_000);
            c.quadTwice += r.nextLong(0, 10_000_000);
            return true;
        });
    }

    @Test
    void aLongerQueueCostsMore() {
        check("longer queue", +1, (c, r) -> {
            c.waiting += r.nextInt(1, 20);
            return true;
        });
    }

    @Test
    void lessFreeKvCostsMore() {
        check("less free KV", +1, (c, r) -> {
            c.kvUsed = r.nextLong(c.kvUsed, c.kvCap + 1);
            return true;
        });
    }

    @Test
    void theWorkflowBonusDecaysWithIdleTime() {
        check("longer idle", +1, (c, r) -> {
            if (!c.lastWorker) return false;
            c.idleSeconds += r.nextDouble(0.001, 600);
            return true;
        });
    }

    @Test
    void warmExpectedToolsCostLess() {
        check("more tool hits", -1, (c, r) -> {
            if (c.toolHits >= c.expectedTools) return false;
            c.toolHits++;
            return true;
        });
    }

    @Test
    void headOfLineIsFreeUpToTheSlackThenQuadratic() {
        CostParameters p = CostParameters.builder().alphaHo(100).qSlack(4).build();
        assertThat(CostModel.headOfLine(p, CostModel.queueExcessSquared(p, 4))).isZero();
        assertThat(CostModel.headOfLine(p, CostModel.queueExcessSquared(p, 5))).isEqualTo(100);
        assertThat(CostModel.headOfLine(p, CostModel.queueExcessSquared(p, 7))).isEqualTo(900);
    }
}
