package io.tierroute.selector.index;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reader that loaded the table before a growth, then meets a block whose run was split
 * (end shrunk) after the growth, must re-read the table rather than retry the stale one forever
 * (found in review; this failed before the walk re-read {@code table} in its retry loop).
 */
class StaleTableReaderTest {

    static Object table(RunPrefixIndex idx) throws Exception {
        Field f = RunPrefixIndex.class.getDeclaredField("table");
        f.setAccessible(true);
        return f.get(idx);
    }

    @Test
    void aReaderNeverSpinsOnATableGrownSinceItsWalkBegan() throws Exception {
        int hung = 0;
        for (int attempt = 0; attempt < 5 && hung == 0; attempt++) {
            hung += once(attempt);
        }
        System.out.println("hung readers: " + hung);
        assertThat(hung).as("reader threads stuck in RunPrefixIndex.walk").isZero();
    }

    int once(int attempt) throws Exception {
        RunPrefixIndex idx = RunPrefixIndex.builder().workers(3).maxBlocks(50_000_000).build();
        final int L = 300_000;
        long base = 1_000_000_000L * (attempt + 1);
        for (int i = 0; i < L; i++) { // one run per block: a slow walk
            idx.apply(new KvEvent.Stored(0, Tier.HBM, false, 0, new long[]{base + i}));
        }
        long[] x = new long[10];
        for (int i = 0; i < 10; i++) x[i] = 7_000_000_000L + i;
        idx.apply(new KvEvent.Stored(0, Tier.HBM, false, 0, x)); // one run R_x
        long[] req = new long[L + 5];
        for (int i = 0; i < L; i++) req[i] = base + i;
        for (int i = 0; i < 5; i++) req[L + i] = x[5 + i]; // enters R_x in its middle
        // fill the table to just below its growth point
        long fresh = 9_000_000_000L;
        Object t0 = table(idx);
        BlockTable bt = (BlockTable) t0;
        Field used = BlockTable.class.getDeclaredField("used");
        used.setAccessible(true);
        while ((int) used.get(bt) + 3 <= bt.capacity() * BlockTable.LOAD_FACTOR) {
            idx.apply(new KvEvent.Stored(2, Tier.HBM, false, 0, new long[]{fresh++}));
            if (table(idx) != bt) { bt = (BlockTable) table(idx); }
        }
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        PrefixMatch m = new PrefixMatch(3);
        Thread reader = new Thread(() -> {
            go.countDown();
            idx.match(req, req.length, 0, m);
            done.countDown();
        }, "stale-table-reader");
        reader.setDaemon(true);
        reader.start();
        go.await();
        Object before = table(idx);
        while (table(idx) == before) {
            idx.apply(new KvEvent.Stored(2, Tier.HBM, false, 0, new long[]{fresh++}));
        }
        idx.apply(new KvEvent.Removed(0, Tier.HBM, new long[]{x[3]})); // split R_x: its end shrinks to 3
        boolean finished = done.await(5, TimeUnit.SECONDS);
        System.out.println("attempt " + attempt + ": reader finished=" + finished
                + (finished ? "" : " state=" + reader.getState() + " at " + reader.getStackTrace()[0]));
        if (finished) {
            // x[5..9] are still held, in the run the split created: the walk must find them there.
            assertThat(m.cumulativeBlocks(0, Tier.HBM.ordinal())).as("attempt %d", attempt).isEqualTo(L + 5);
        }
        return finished ? 0 : 1;
    }
}
