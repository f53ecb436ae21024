package io.tierroute.selector.kafka;

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
 * Whether a consumer thread is in contact with the Kafka cluster, told from its consumer's own client metrics: no
 * request of its own, so a check after each {@code poll()} costs a metric read. A Kafka consumer's {@code poll()}
 * returns nothing while no broker is reachable, exactly as when nothing is published; this tells the two apart.
 *
 * <p><b>Contact</b> is a check at which the consumer has received bytes from a broker since the previous check (the
 * client metric {@code incoming-byte-total} of group {@code consumer-metrics} rose), or a {@link #touch} (another
 * client of the same thread, e.g. a re-read's consumer, got an answer). A consumer assigned partitions gets a fetch
 * response at least every {@code fetch.max.wait.ms} (500 ms) even when nothing is published; while the broker is down
 * or nothing listens at the bootstrap address it receives nothing (measured with kafka-clients 4.2: the value stands
 * still from the broker's stop on, and an idle consumer's rises at each 0.5 s poll). {@code connection-count} drops to
 * 0 as well, but the client's channels include one still being set up, which to an address a firewall drops lasts up
 * to 30 s per attempt; bytes received are what proves an answer.
 *
 * <p><b>Unreachable</b> once there has been no contact for longer than the threshold ({@link #DEFAULT_THRESHOLD}, or
 * twice the consumer's {@code fetch.max.wait.ms} when that is longer, see {@link #thresholdFor}); "since" is the time
 * of the last contact, or of {@link #BrokerContact(String, Duration) construction} when there was none. The time
 * carries over a new session's consumer ({@link #watch}): an outage that outlives a session restart is one outage.
 *
 * <p><b>Threads.</b> {@link #watch}, {@link #check} and {@link #touch} belong to the thread that owns the consumer
 * (a {@code KafkaConsumer} must not be used by two threads); the accessors may be read from any thread.
 */
public final class BrokerContact {

    /** No contact for longer than this makes the cluster unreachable (a healthy consumer hears every 0.5 s). */
    public static final Duration DEFAULT_THRESHOLD = Duration.ofSeconds(5);

    static final String METRIC_GROUP = "consumer-metrics";
    static final String METRIC = "incoming-byte-total";

    private static final DateTimeFormatter ISO = DateTimeFormatter.ISO_OFFSET_DATE_TIME;

    private final String bootstrap;
    private final long thresholdNanos;
    private Metric incoming;       // owner thread: the watched consumer's incoming-byte-total, null if none
    private boolean blind;         // owner thread: the watched consumer has no such metric
    private double lastBytes;      // owner thread
    private volatile long lastContactNanos;
    private volatile long lastContactMillis;
    private volatile boolean unreachable;

    /**
     * @param bootstrap what the consumer connects to (for the messages)
     * @param threshold no contact for longer than this is an outage
     */
    public BrokerContact(String bootstrap, Duration threshold) {
        if (threshold.isNegative() || threshold.isZero()) {
            throw new IllegalArgumentException("threshold must be positive, got " + threshold);
        }
        this.bootstrap = bootstrap;
        this.thresholdNanos = threshold.toNanos();
        this.lastContactNanos = System.nanoTime();
        this.lastContactMillis = System.currentTimeMillis();
    }

    /**
     * The threshold for a consumer with these client properties: {@link #DEFAULT_THRESHOLD}, or twice
     * {@code fetch.max.wait.ms} when that is longer (an idle consumer hears from the broker only that often).
     */
    public static Duration thresholdFor(Map<?, ?> clientProperties) {
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
    public void watch(Consumer<?, ?> consumer) {
        incoming = null;
        for (Map.Entry<MetricName, ? extends Metric> e : consumer.metrics().entrySet()) {
            if (e.getKey().name().equals(METRIC) && e.getKey().group().equals(METRIC_GROUP)) {
                incoming = e.getValue();
            }
        }
        blind = incoming == null;
        lastBytes = blind ? 0 : bytes();
    }

    /**
     * Looks at the watched consumer's metric (call after each poll, and after other calls that talk to the cluster);
     * true when this changed {@link #unreachable()}. A consumer without the metric (another client version) is
     * taken to be in contact: what cannot be told is never reported as an outage.
     */
    public boolean check() {
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

    /** Contact made through another client of the owner thread (a re-read's or a scan's consumer got its answer). */
    public void touch() {
        contact(System.nanoTime());
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
    public boolean unreachable() {
        return unreachable;
    }

    /** Epoch ms of the last contact while {@link #unreachable()}, else null. */
    public Long unreachableSinceMillis() {
        return unreachable ? lastContactMillis : null;
    }

    /** Time since the last contact while {@link #unreachable()}, else 0. */
    public long unreachableMillis() {
        return unreachable ? TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastContactNanos) : 0;
    }

    /** Where the consumer connects. */
    public String bootstrap() {
        return bootstrap;
    }

    /** {@code no connection to Kafka at HOST:PORT since 2025-01-31T10:15:42+01:00 (37 s)}, for a status or a log. */
    public String describe() {
        return describe(bootstrap, lastContactMillis, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastContactNanos));
    }

    /** As {@link #describe()}, for a given bootstrap, last contact (epoch ms) and time since then. */
    public static String describe(String bootstrap, long sinceMillis, long forMillis) {
        return "no connection to Kafka at " + bootstrap + " since " + isoTime(sinceMillis) + " (" + forMillis / 1000
                + " s)";
    }

    /** An epoch ms as ISO 8601 with this machine's offset, to the second (as the log lines show time). */
    public static String isoTime(long epochMillis) {
        return OffsetDateTime.ofInstant(Instant.ofEpochMilli(epochMillis), ZoneId.systemDefault())
                .truncatedTo(ChronoUnit.SECONDS).format(ISO);
    }
}
