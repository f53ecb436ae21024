package io.tierroute.selector.kafka;

import io.tierroute.schemas.Topics;
import io.tierroute.selector.config.KafkaSettings;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

/**
 * Reads one record of the params topic back for the parameter loader, with a short-lived consumer of its own: by its
 * offset when the loader indexed it, else by scanning the topic for the version's key. Used when a version that is no
 * longer retained becomes active (an operator's pin to an old version, a model carried by an older record). Called
 * on the loader thread; {@link #wakeup()} from any thread ends a read in progress.
 */
final class SnapshotRecordReader implements ServedScopeRecords.ReadBack {

    private static final Logger log = LoggerFactory.getLogger(ParameterLoader.class); // the loader's messages, its logger
    private static final long REREAD_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long SCAN_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);

    /** Where a record was read: its partition and offset. */
    record Where(int partition, long offset) {
        @Override
        public String toString() {
            return "partition " + partition + " offset " + offset;
        }
    }

    /** A read's answer: the record's bytes, or null with {@code transientFailure} telling whether a retry may succeed. */
    record Fetched(byte[] bytes, boolean transientFailure) {}

    private final KafkaSettings settings;
    private final String scope;
    private final BooleanSupplier running;
    private final BrokerContact contact;
    private final LongAdder rereads = new LongAdder();
    private final LongAdder scans = new LongAdder();
    private volatile KafkaConsumer<byte[], byte[]> consumer; // a read in progress

    /**
     * @param running false once the loader closes: a read in progress gives up (transiently)
     * @param contact touched when the read's consumer answers (the loader's own consumer is not polled meanwhile)
     */
    SnapshotRecordReader(KafkaSettings settings, String scope, BooleanSupplier running, BrokerContact contact) {
        this.settings = settings;
        this.scope = scope;
        this.running = running;
        this.contact = contact;
    }

    /** Reads {@code version}'s record back at {@code w}: null bytes, not transient, when compaction or retention took it. */
    @Override
    public Fetched reread(long version, Where w) {
        rereads.increment();
        TopicPartition tp = new TopicPartition(Topics.PARAMS, w.partition());
        try (KafkaConsumer<byte[], byte[]> c = KafkaClients.assignedConsumer(settings, "params-reread")) {
            consumer = c;
            if (!running.getAsBoolean()) {
                return new Fetched(null, true);
            }
            c.assign(List.of(tp));
            c.seek(tp, w.offset());
            long deadline = System.nanoTime() + REREAD_TIMEOUT_NANOS;
            while (running.getAsBoolean() && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    contact.touch();
                    if (r.offset() == w.offset()) {
                        return new Fetched(r.value(), false);
                    }
                    if (r.offset() > w.offset()) {
                        return new Fetched(null, false); // compacted away
                    }
                }
                if (c.position(tp) > w.offset()) {
                    contact.touch();
                    return new Fetched(null, false); // gone (compacted, or trimmed by retention)
                }
            }
        } catch (RuntimeException e) {
            if (running.getAsBoolean()) {
                log.warn("params loader: re-reading version {} at {} failed: {}", version, w, e.toString());
            }
        } finally {
            consumer = null;
        }
        return new Fetched(null, true); // timed out, or an error: worth another try
    }

    /**
     * Finds {@code version} ({@code why} it is not indexed, for the log) by its key, reading the params topic from the
     * beginning up to its end offsets at the start of the scan (the last value of the key wins, as compaction would
     * have it): null bytes, not transient, when the topic does not hold it.
     */
    @Override
    public Fetched scan(long version, String why) {
        scans.increment();
        byte[] key = Topics.paramsKey(scope, version).getBytes(StandardCharsets.UTF_8);
        log.info("params loader: version {} of scope '{}' is {}; scanning {} for it", version, scope, why, Topics.PARAMS);
        try (KafkaConsumer<byte[], byte[]> c = KafkaClients.assignedConsumer(settings, "params-scan")) {
            consumer = c;
            if (!running.getAsBoolean()) {
                return new Fetched(null, true);
            }
            List<TopicPartition> parts = KafkaClients.partitions(c, Topics.PARAMS, Duration.ofSeconds(5));
            if (parts.isEmpty()) {
                return new Fetched(null, true);
            }
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> targets = new HashMap<>(c.endOffsets(parts));
            byte[] found = null;
            long deadline = System.nanoTime() + SCAN_TIMEOUT_NANOS;
            while (running.getAsBoolean() && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (r.key() != null && Arrays.equals(r.key(), key)) {
                        found = r.value();
                    }
                }
                targets.entrySet().removeIf(e -> c.position(e.getKey()) >= e.getValue());
                if (targets.isEmpty()) {
                    contact.touch();
                    return new Fetched(found, false);
                }
            }
        } catch (RuntimeException e) {
            if (running.getAsBoolean()) {
                log.warn("params loader: scanning {} for version {} failed: {}", Topics.PARAMS, version, e.toString());
            }
        } finally {
            consumer = null;
        }
        return new Fetched(null, true);
    }

    /** Ends a read in progress (any thread). */
    void wakeup() {
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }

    long rereads() { return rereads.sum(); }

    long scans() { return scans.sum(); }
}
