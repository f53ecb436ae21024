package io.tierroute.selector.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.Random;

import io.tierroute.selector.protocol.BlockHasher;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** {@code match} and {@code BlockHasher.hashTokens} allocate nothing once warmed up (the JMH figure is under -prof gc). */
class AllocationTest {

    @Test
    void matchAndHashingAreAllocationFree() {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        Assumptions.assumeTrue(bean instanceof com.sun.management.ThreadMXBean);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        Assumptions.assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());

        int workers = 130;
        BlockHasher hasher = new BlockHasher();
        long salt = BlockHasher.salt("m", null, null);
        Random rnd = new Random(3);
        int[][] prompts = new int[16][];
        long[][] hashes = new long[16][];
        RunPrefixIndex index = RunPrefixIndex.builder().workers(workers).build();
        for (int i = 0; i < prompts.length; i++) {
            prompts[i] = new int[16 * 64];
            for (int k = 0; k < prompts[i].length; k++) {
                prompts[i][k] = k < 256 ? k : rnd.nextInt(1000); // a shared 16-block prefix
            }
            hashes[i] = new long[64];
            hasher.hashTokens(prompts[i], prompts[i].length, 16, salt, hashes[i]);
            index.apply(new KvEvent.Stored(i % workers, Tier.ofOrdinal(i % Tier.COUNT), false, 0, hashes[i]));
            index.recordRouted((i + 7) % workers, hashes[i], 40, 0, 1_000 + i);
        }
        PrefixMatch out = new PrefixMatch(workers);
        long[] buf = new long[64];
        long sink = 0;
        for (int round = 0; round < 2; round++) {
            long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
            for (int i = 0; i < 200_000; i++) {
                int p = i & 15;
                int n = hasher.hashTokens(prompts[p], prompts[p].length, 16, salt, buf);
                index.match(buf, n, i & 2047, out); // some approximate entries expire on the way
                sink += out.totalBlocks(p);
            }
            long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
            if (round == 1) { // round 0 warms up (JIT, first sizing)
                assertThat(allocated).as("bytes allocated by 200k hash+match calls").isLessThan(1024);
            }
        }
        assertThat(sink).isPositive();
    }
}
