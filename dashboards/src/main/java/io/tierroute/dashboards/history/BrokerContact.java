package io.tierroute.dashboards.history;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Whether the {@link HistoryReader}'s consumer is in contact with the Kafka cluster, told from the consumer's own
 * client metrics (no request of its own): a consumer's {@code poll()} returns nothing while no broker is reachable,
 * exactly as when nothing is published. The same rule as the selector's {@code io.tierroute.selector.kafka.BrokerContact}
 * (selector-runtime README, "Kafka outages"), kept here because the dashboard does not depend on the selector.
 *
 * <p><b>Contact</b> is a check at which the consumer has received bytes since the previous one (its
 * {@code incoming-byte-total} of group {@code consumer-metrics} rose): an idle consumer assigned partitions gets a
 * fetch response every {@code fetch.max.wait.ms} (500 ms); while the broker is down, or nothing listens at the
 * bootstrap address, it receives nothing. <b>Unreachable</b> after {@link #DEFAULT_THRESHOLD} without contact (or
 * twice {@code fetch.max.wait.ms} when longer), since the last contact, or since construction when there was none;
 * that time carries over a new session's consumer ({@link #watch}).
 *
 * <p><b>Threads.</b> {@link #watch} and {@link #check} belong to the reader's thread; the accessors to any thread.
 */
final class BrokerContact {

    /** No contact for longer than this makes the cluster unreachable (a healthy consumer hears every 0.5 s). */
    static final Duration DEFAULT_THRESHOLD = Duration.ofSeconds(5);

    private final long thresholdNanos;
    private Metric incoming;   // reader thread: the watched consumer's incoming-byte-total, null if none
    private boolean blind;     // reader thread: the watched consumer has no such metric (never reported as an outage)
    private double lastBytes;
    private volatile long lastContactNanos = System.nanoTime();
    private volatile long lastContactMillis = System.currentTimeMillis();
    private volatile boolean unreachable;

    BrokerContact(Duration threshold) {
        this.thresholdNanos = threshold.toNanos();
    }

    /** {@link #DEFAULT_THRESHOLD}, or twice the consumer's {@code fetch.max.wait.ms} when that is longer. */
    static Duration thresholdFor(Map<?, ?> clientProperties) {
        Object wait = clientProperties.get(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG);
        long waitMs;
        try {
            waitMs = wait == null ? 0 : Long.parseLong(wait.toString().trim());
        } catch (NumberFormatException e) {
            waitMs = 0; // the consumer refuses it at construction
        }
        return waitMs * 2 > DEFAULT_THRESHOLD.toMillis() ? Duration.ofMillis(waitMs * 2) : DEFAULT_THRESHOLD;
    }

    /** Follows {@code consumer} from now on (a new session's); the time of the last contact carries over. */
    void watch(Consumer<?, ?> consumer) {
        incoming = null;
        for (Map.Entry<MetricName, ? extends Metric> e : consumer.metrics().entrySet()) {
            if (e.getKey().name().equals("incoming-byte-total") && e.getKey().group().equals("consumer-metrics")) {
                incoming = e.getValue();
            }
        }
        blind = incoming == null;
        lastBytes = blind ? 0 : bytes();
    }

    /** Looks at the watched consumer's metric (after each poll or lookup); true when {@link #unreachable()} changed. */
    boolean check() {
        long now = System.nanoTime();
        if (blind) {
            contact(now);
        } else if (incoming != null) {
            double b = bytes();
            if (b > lastBytes) {
                lastBytes = b;
                contact(now);
            }
        }
        boolean was = unreachable;
        unreachable = now - lastContactNanos > thresholdNanos;
        return was != unreachable;
    }

    private void contact(long now) {
        lastContactNanos = now;
        lastContactMillis = System.currentTimeMillis();
    }

    private double bytes() {
        Object v = incoming.metricValue();
        return v instanceof Number n ? n.doubleValue() : 0;
    }

    /** Whether the last {@link #check} found no contact for longer than the threshold. */
    boolean unreachable() {
        return unreachable;
    }

    /** Epoch ms of the last contact while {@link #unreachable()}, else null. */
    Long unreachableSinceMillis() {
        return unreachable ? lastContactMillis : null;
    }

    /** Time since the last contact. */
    long millisSinceContact() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastContactNanos);
    }

    /** {@code no connection to Kafka at HOST:PORT since 2025-01-31T10:15:42+01:00 (37 s)}. */
    String describe(String bootstrap) {
        return "no connection to Kafka at " + bootstrap + " since " + isoTime(lastContactMillis) + " ("
                + millisSinceContact() / 1000 + " s)";
    }

    /** An epoch ms as ISO 8601 with this machine's offset, to the second (as the log lines show time). */
    static String isoTime(long epochMillis) {
        return OffsetDateTime.ofInstant(Instant.ofEpochMilli(epochMillis), ZoneId.systemDefault())
                .truncatedTo(ChronoUnit.SECONDS).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    }
}
