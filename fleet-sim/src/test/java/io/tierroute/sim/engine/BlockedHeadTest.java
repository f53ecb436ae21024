package io.tierroute.sim.engine;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.sim.workload.RequestFactory;
import org.junit.jupiter.api.Test;

import static io.tierroute.sim.engine.PreemptionRecomputeTest.step;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queue head that cannot get its blocks waits without touching its cached prefix: vLLM's {@code allocate_slots}
 * counts the blocks it needs before it touches the ones it matched, so a waiting request does not keep its prefix
 * fresh in the eviction order, step after step, ahead of blocks freed after it.
 *
 * <p>10 HBM blocks of 16 tokens, no CPU tier. {@code p} and then {@code q} compute and free a 2-block prefix each
 * (eviction order P2 P1 Q2 Q1); {@code x} decodes until it holds 4 blocks (2 slots left free). {@code w} matches P
 * and needs 5 more blocks for its first chunk: the 2 free slots and Q's 2 evictable blocks are 4, so it waits.
 */
class BlockedHeadTest {

    private static final int BS = 16;
    private static final EngineConfig CFG = EngineConfig.builder().workers(1).blockSize(BS).hbmCapacityTokens(10 * BS)
            .cpuCapacityTokens(0).build();
    private static final RequestFactory F = new RequestFactory(CFG.model(), BS);

    private static final EngineListener QUIET = new EngineListener() {
        @Override public void kvEvent(KvEvent event) {}
        @Override public void firstToken(Sequence s, long now) {}
        @Override public void tokens(Sequence s, long now) {}
        @Override public void finished(Sequence s, long now) {}
    };

    @Test
    void aHeadThatDoesNotFitLeavesItsCachedPrefixWhereItWasInTheEvictionOrder() {
        Worker w = new Worker(0, CFG, QUIET);
        Sequence p = new Sequence(F.request("p", 0, 33, new long[] {101, 102}, 1, 1, null), 0);
        Sequence q = new Sequence(F.request("q", 0, 33, new long[] {301, 302}, 1, 1, null), 0);
        Sequence x = new Sequence(F.request("x", 0, 15, new long[0], 60, 60, null), 0);
        Sequence head = new Sequence(F.request("w", 0, 97, new long[] {101, 102, 201, 202, 203, 204}, 1, 1, null), 0);
        long now = 0;
        w.enqueue(p);
        now = step(w, now);
        w.enqueue(q);
        now = step(w, now);
        long[] freed = {p.hashes[1], p.hashes[0], q.hashes[1], q.hashes[0]};
        assertThat(w.cache.evictionOrder()).containsExactly(freed);
        w.enqueue(x);
        while (x.heldBlocks < 4) {
            now = step(w, now);
        }
        assertThat(w.cache.resident()).isEqualTo(8);
        assertThat(head.hashes[0]).isEqualTo(p.hashes[0]);

        w.enqueue(head);
        for (int k = 0; k < 3; k++) {
            now = step(w, now);
            assertThat(head.firstScheduledAt).as("w waits: 4 blocks can be had, its chunk needs 5").isEqualTo(-1);
            assertThat(head.heldBlocks).isZero();
            assertThat(w.cache.evictionOrder()).as("P is still the least recently used").containsExactly(freed);
        }
    }
}
