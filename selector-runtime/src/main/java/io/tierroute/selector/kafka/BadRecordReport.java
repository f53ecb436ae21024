package io.tierroute.selector.kafka;

import io.tierroute.selector.kafka.ParameterLoader.BadReason;
import io.tierroute.selector.logging.LogLimiter;
import io.tierroute.selector.params.ParameterStore;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.BooleanSupplier;

/**
 * What the {@link ParameterLoader} does about a bad record: undecodable bytes, an unknown writer schema, a snapshot or
 * control record the selector cannot use, a version it gives up. The parameter set served stays. The status's last
 * problem says where and what (published at once when the loader is ready, else with the status that ends the
 * catch-up), a WARN says it too ({@link LogLimiter}: bad input cannot flood the log), and
 * {@code tierroute_params_bad_records_total{topic,reason}} ({@link BadRecordCounts}) counts it, last, so whoever sees
 * the count sees the status that goes with it. Loader thread, but for the counts (any thread).
 */
final class BadRecordReport {

    private static final Logger log = LoggerFactory.getLogger(ParameterLoader.class); // the loader's messages, its logger

    private final String scope;
    private final ParameterStore store;
    private final LoaderStatus status;
    private final LogLimiter badLog;
    private final BooleanSupplier ready;
    private final Runnable publish;
    private final BadRecordCounts counts = new BadRecordCounts();

    /**
     * @param scope   the served scope (for the log)
     * @param store   the store, whose version is kept (for the log)
     * @param badLog  limits the WARNs (shared with the loader's other problem lines)
     * @param ready   whether the loader has reported ready
     * @param publish publishes the whole status
     */
    BadRecordReport(String scope, ParameterStore store, LoaderStatus status, LogLimiter badLog, BooleanSupplier ready,
            Runnable publish) {
        this.scope = scope;
        this.store = store;
        this.status = status;
        this.badLog = badLog;
        this.ready = ready;
        this.publish = publish;
    }

    /**
     * A bad record on {@code topic} for {@code reason}.
     *
     * @param r the record, or null when the problem is a version's, not one record's (the message says which)
     */
    void report(String topic, BadReason reason, ConsumerRecord<byte[], byte[]> r, String message) {
        reportAt(topic, reason, r == null ? topic : topic + "@" + r.partition() + ":" + r.offset(), message);
    }

    /** As {@link #report}, {@code where} naming the record ({@code topic@partition:offset}) or the topic. */
    void reportAt(String topic, BadReason reason, String where, String message) {
        status.setLastError(where + ": " + message);
        if (badLog.allow()) {
            log.warn("params loader: bad record {} ({}): {}; keeping parameter version {} of scope '{}'", where,
                    reason.name().toLowerCase(), message, store.current().version(), scope);
        }
        if (ready.getAsBoolean()) {
            publish.run();
        }
        // Counted last: whoever sees the count sees the status (and its lastError) that goes with it.
        counts.increment(topic, reason);
    }

    /** Records that were bad on {@code topic} (params or control) for {@code reason}. */
    long count(String topic, BadReason reason) {
        return counts.count(topic, reason);
    }

    /** All bad records on both topics. */
    long total() {
        return counts.total();
    }
}
