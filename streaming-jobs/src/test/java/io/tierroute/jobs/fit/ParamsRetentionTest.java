package io.tierroute.jobs.fit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

/**
 * {@link ParamsRetention} over real keyed state (Flink's operator test harness), driven publication by publication:
 * the record carrying a forest stays while a kept version uses it, and goes once its users are all older than the
 * window; a long history is worked through {@link ParamsRetention#MAX_PER_PUBLISH} versions at a time.
 */
class ParamsRetentionTest {

    /** One publication: version, the record carrying its forest (0: none), a version that must stay (0: none). */
    record Published(long version, long carrier, long needed) {}

    /** Feeds each publication to a ParamsRetention keeping {@code retain} versions; emits what it deletes. */
    static final class Driver extends KeyedProcessFunction<String, Published, Long> {
        private final int retain;
        private transient ParamsRetention retention;

        Driver(int retain) {
            this.retain = retain;
        }

        @Override
        public void open(OpenContext openContext) {
            var ctx = getRuntimeContext();
            retention = new ParamsRetention(ctx.getState(ScopeFitFunction.PARAMS_DELETED_BELOW),
                ctx.getMapState(ScopeFitFunction.PARAMS_CARRIER_NEWEST_USE), ctx.getMapState(ScopeFitFunction.PARAMS_HELD_BACK),
                retain);
        }

        @Override
        public void processElement(Published p, Context ctx, Collector<Long> out) throws Exception {
            for (long t : retention.afterPublish(p.version(), p.carrier(), t -> t == p.needed())) {
                out.collect(t);
            }
        }
    }

    private static List<Long> run(int retain, List<Published> publications) throws Exception {
        try (var h = new KeyedOneInputStreamOperatorTestHarness<>(new KeyedProcessOperator<>(new Driver(retain)),
                p -> "default", Types.STRING)) {
            h.open();
            for (Published p : publications) {
                h.processElement(new StreamRecord<>(p));
            }
            return new ArrayList<>(h.extractOutputValues());
        }
    }

    @Test
    void aForestCarrierStaysWhileAKeptVersionUsesIt() throws Exception {
        List<Published> ps = new ArrayList<>();
        ps.add(new Published(1, 0, 0));
        ps.add(new Published(2, 2, 0)); // carries a forest
        for (long v = 3; v <= 8; v++) {
            ps.add(new Published(v, 2, 0)); // names it
        }
        assertThat(run(3, ps)).as("1, 3, 4 and 5 go; 2 stays, version 8 (kept) uses it").containsExactly(1L, 3L, 4L, 5L);

        ps.add(new Published(9, 9, 0)); // a new forest; 7..9 kept: 6 goes, 2 stays (its newest user, 8, is kept)
        ps.add(new Published(10, 9, 0)); // 8..10: 7 goes
        ps.add(new Published(11, 9, 0)); // 9..11: 2 goes (8 is out of the window), then 8
        assertThat(run(3, ps)).containsExactly(1L, 3L, 4L, 5L, 6L, 7L, 2L, 8L);
    }

    @Test
    void aLongHistoryIsWorkedThroughAThousandVersionsAtATime() throws Exception {
        int max = ParamsRetention.MAX_PER_PUBLISH;
        long first = 3L * max;
        List<Published> ps = List.of(new Published(first, 0, 7), new Published(first + 1, 0, 7),
            new Published(first + 2, 0, 7), new Published(first + 3, 0, 7));
        List<Long> deleted = run(10, ps);
        assertThat(deleted).as("everything below the window but version 7, which must stay")
            .hasSize((int) first + 3 - 10 - 1).doesNotContain(7L).doesNotHaveDuplicates();
        assertThat(deleted.subList(0, max)).as("the first publication deletes its share, oldest first")
            .startsWith(1L, 2L, 3L, 4L, 5L, 6L, 8L);
    }

    @Test
    void zeroKeepsEveryVersion() throws Exception {
        List<Published> ps = new ArrayList<>();
        for (long v = 1; v <= 20; v++) {
            ps.add(new Published(v, 0, 0));
        }
        assertThat(run(0, ps)).isEmpty();
    }
}
