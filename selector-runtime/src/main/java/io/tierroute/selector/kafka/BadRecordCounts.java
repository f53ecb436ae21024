package io.tierroute.selector.kafka;

import io.tierroute.schemas.Topics;
import io.tierroute.selector.kafka.ParameterLoader.BadReason;

import java.util.concurrent.atomic.LongAdder;

/** The loader's {@code tierroute_params_bad_records_total{topic,reason}}: params or control, by reason. Any thread. */
final class BadRecordCounts {

    private final LongAdder[][] counts = new LongAdder[2][BadReason.values().length];

    BadRecordCounts() {
        for (LongAdder[] row : counts) {
            for (int i = 0; i < row.length; i++) {
                row[i] = new LongAdder();
            }
        }
    }

    void increment(String topic, BadReason reason) {
        counts[row(topic)][reason.ordinal()].increment();
    }

    /** Records that were bad on {@code topic} (params, else control) for {@code reason}. */
    long count(String topic, BadReason reason) {
        return counts[row(topic)][reason.ordinal()].sum();
    }

    /** All bad records on both topics. */
    long total() {
        long n = 0;
        for (LongAdder[] row : counts) {
            for (LongAdder a : row) {
                n += a.sum();
            }
        }
        return n;
    }

    private static int row(String topic) {
        return topic.equals(Topics.PARAMS) ? 0 : 1;
    }
}
