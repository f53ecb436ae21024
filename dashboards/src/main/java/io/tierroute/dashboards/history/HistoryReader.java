package io.tierroute.dashboards.history;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.RecordDecodeException;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.snapshot.ControlRecordCheck;
import io.tierroute.schemas.snapshot.ModelCarrier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code tierroute.params} and {@code tierroute.control} from the beginning into a
 * {@link SnapshotHistory}, then follows them. One daemon thread owns one consumer assigned to every
 * partition of both topics (no group, nothing committed; {@code read_committed}, as the job's sink
 * is transactional). The history is ready once the position reaches the end offsets read at the
 * start of the session. Missing topics are waited for (checked every second). A consumer error
 * starts a new session after a back-off (1 s doubling to 30 s) that re-reads both topics into the
 * reset history. Undecodable records are logged, counted and skipped.
 *
 * <p><b>Kafka outages.</b> While no broker answers, {@code poll()} returns nothing, as when nothing is published: the
 * reader keeps polling and, when the broker is back, goes on from its position (no new session). It checks its
 * consumer's contact with the cluster after each poll ({@link BrokerContact}: the consumer's own metrics, no extra
 * request); after 5 s without (also when nothing ever answered) {@link #kafkaUnreachableSinceMs()} is the time of the
 * last contact and {@link #lastError()} says {@code no connection to Kafka at HOST:PORT since <ISO time> (<n> s)}
 * (its seconds refreshed every second while polling), one WARN is logged (repeated every minute), and one INFO when
 * contact is back, which clears that {@code lastError}. {@link SnapshotHistory#ready()} keeps its meaning (caught up).
 */
public final class HistoryReader implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HistoryReader.class);
    private static final List<String> TOPICS = List.of(Topics.PARAMS, Topics.CONTROL);

    private final String bootstrap;
    private final Properties clientProperties;
    private final SnapshotHistory history;
    private final Thread thread;
    private final CountDownLatch firstReady = new CountDownLatch(1);
    private final CountDownLatch stop = new CountDownLatch(1);
    private final LongAdder badRecords = new LongAdder();
    private final LongAdder records = new LongAdder();
    private volatile boolean running = true;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private volatile String lastError;
    private final BrokerContact contact;
    private volatile Long unreachableSince; // written after lastError: a reader that sees it sees the message too
    private String outageError;        // reader thread: the lastError set for the current outage
    private long outageSinceMillis;
    private long outagePublishedNanos;
    private long outageLoggedNanos;

    public HistoryReader(String bootstrapServers, SnapshotHistory history) {
        this(bootstrapServers, history, new Properties());
    }

    /**
     * @param clientProperties extra Kafka consumer settings (security.protocol, sasl.*, ssl.* ...) for a
     *                         secured broker; they are applied over the reader's own defaults
     */
    public HistoryReader(String bootstrapServers, SnapshotHistory history, Properties clientProperties) {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("bootstrap servers must be given as HOST:PORT[,HOST:PORT...]");
        }
        this.bootstrap = bootstrapServers;
        this.clientProperties = (Properties) clientProperties.clone();
        checkClientSettings(props());
        this.history = history;
        this.contact = new BrokerContact(BrokerContact.thresholdFor(clientProperties));
        this.thread = new Thread(this::run, "tierroute-dashboard-history");
        this.thread.setDaemon(true);
    }

    public HistoryReader start() {
        thread.start();
        return this;
    }

    /** Waits until the first session caught up with both topics. */
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        return firstReady.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    public SnapshotHistory history() {
        return history;
    }

    public long badRecords() {
        return badRecords.sum();
    }

    public long recordsRead() {
        return records.sum();
    }

    /** The last problem (a bad record, a consumer error, no connection to Kafka), or null. */
    public String lastError() {
        return lastError;
    }

    /**
     * While the reader has had no contact with the Kafka cluster for more than 5 s: the epoch ms of its last contact
     * (of its start when it never had one); null while in contact.
     */
    public Long kafkaUnreachableSinceMs() {
        return unreachableSince;
    }

    private void run() {
        long backoff = 1000;
        while (running) {
            try {
                session();
            } catch (WakeupException e) {
                // close()
            } catch (RuntimeException e) {
                if (!running) {
                    break;
                }
                lastError = "cannot read " + TOPICS + " from " + bootstrap + ": " + e;
                log.warn("dashboard history: cannot read {} from {} ({}); retrying in {} s", TOPICS, bootstrap,
                        e.getCause() == null ? e.toString() : e + ": " + e.getCause().getMessage(), backoff / 1000);
                checkContact(); // a timeout of the topic lookup: most likely no broker answers
                pause(backoff);
                backoff = Math.min(backoff * 2, 30_000);
            }
        }
    }

    private void session() {
        history.reset();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props(), new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer = c;
            contact.watch(c);
            List<TopicPartition> parts = awaitPartitions(c);
            if (parts == null) {
                return;
            }
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> targets = new HashMap<>(c.endOffsets(parts, Duration.ofSeconds(30)));
            while (running) {
                ConsumerRecords<byte[], byte[]> polled = c.poll(Duration.ofMillis(200));
                checkContact(); // an empty poll: nothing published, or no broker (poll() does not tell)
                for (ConsumerRecord<byte[], byte[]> r : polled) {
                    records.increment();
                    if (r.topic().equals(Topics.PARAMS)) {
                        onParams(r);
                    } else {
                        onControl(r);
                    }
                }
                for (TopicPartition tp : parts) {
                    if (tp.topic().equals(Topics.PARAMS)) {
                        try {
                            history.paramsReadTo(c.position(tp, Duration.ZERO));
                        } catch (org.apache.kafka.common.errors.TimeoutException e) {
                            // no valid position this round (a leader change, a reset): the next poll has one
                        }
                    }
                }
                if (!targets.isEmpty()) {
                    targets.entrySet().removeIf(e -> c.position(e.getKey()) >= e.getValue());
                    if (targets.isEmpty()) {
                        history.markReady();
                        firstReady.countDown();
                        log.info("dashboard history: caught up ({} records, scopes {})", records.sum(),
                                history.scopes());
                    }
                }
            }
        } finally {
            consumer = null;
        }
    }

    private List<TopicPartition> awaitPartitions(KafkaConsumer<byte[], byte[]> c) {
        boolean warned = false;
        while (running) {
            List<TopicPartition> parts = new ArrayList<>();
            boolean all = true;
            for (String t : TOPICS) {
                List<PartitionInfo> infos = c.partitionsFor(t, Duration.ofSeconds(5));
                if (infos == null || infos.isEmpty()) {
                    all = false;
                } else {
                    infos.forEach(i -> parts.add(new TopicPartition(i.topic(), i.partition())));
                }
            }
            checkContact();
            if (all) {
                return parts;
            }
            if (!warned) {
                log.warn("dashboard history: waiting for topics {} on {}", TOPICS, bootstrap);
                lastError = "topics " + TOPICS + " do not exist yet on " + bootstrap;
                warned = true;
            }
            pause(1000);
        }
        return null;
    }

    /**
     * After each poll and topic lookup: going without contact for longer than the threshold sets lastError (its seconds
     * refreshed every second), logs one WARN (repeated every minute); contact back clears it and logs one INFO.
     */
    private void checkContact() {
        boolean changed = contact.check();
        long now = System.nanoTime();
        if (contact.unreachable()) {
            if (changed) {
                outageSinceMillis = contact.unreachableSinceMillis();
            } else if (now - outagePublishedNanos < TimeUnit.SECONDS.toNanos(1)) {
                return;
            }
            outageError = contact.describe(bootstrap);
            lastError = outageError;
            unreachableSince = contact.unreachableSinceMillis();
            outagePublishedNanos = now;
            if (changed || now - outageLoggedNanos >= TimeUnit.MINUTES.toNanos(1)) {
                outageLoggedNanos = now;
                log.warn("dashboard history: {}{}; the history shows what was read until then", changed ? "" : "still ",
                        outageError);
            }
        } else if (changed) {
            if (outageError != null && outageError.equals(lastError)) {
                lastError = null;
            }
            outageError = null;
            unreachableSince = null;
            log.info("dashboard history: Kafka at {} answers again, after {} s without contact (since {})", bootstrap,
                    (System.currentTimeMillis() - outageSinceMillis) / 1000, BrokerContact.isoTime(outageSinceMillis));
        }
    }

    private void onParams(ConsumerRecord<byte[], byte[]> r) {
        if (r.value() == null) {
            Topics.ParamsKey k = Topics.ParamsKey.parse(r.key());
            if (k != null) {
                history.onTombstone(k.scope(), k.version());
            } else {
                bad(r, "tombstone with key '" + (r.key() == null ? "" : new String(r.key(), StandardCharsets.UTF_8))
                        + "' that names no scope#version");
            }
            return;
        }
        ParameterSnapshot s;
        try {
            s = Codecs.PARAMETER_SNAPSHOT.decode(r.value());
        } catch (RecordDecodeException e) {
            bad(r, e.getMessage());
            return;
        }
        if (s.getVersion() < 1) {
            bad(r, "snapshot version " + s.getVersion() + " < 1");
            return;
        }
        String reference = ModelCarrier.problem(s);
        if (reference != null) {
            // Counted and named, and filed without its forest: filed with it, the forest would stand for another
            // version's. Its status still counts, as in every selector's and the CLI's ActivationRule, so that all of
            // them agree on the active version (the selectors refuse to apply it and say so).
            bad(r, "version " + s.getVersion() + " of scope '" + s.getScope() + "': " + reference
                    + " (shown without a forest)");
            s = ParameterSnapshot.newBuilder(s).setQuantileModel(null).setQuantileModelVersion(null).build();
        }
        history.onSnapshot(s, r.offset());
    }

    private void onControl(ConsumerRecord<byte[], byte[]> r) {
        if (r.value() == null) {
            bad(r, "control tombstone ignored");
            return;
        }
        SnapshotControl c;
        try {
            c = Codecs.SNAPSHOT_CONTROL.decode(r.value());
        } catch (RecordDecodeException e) {
            bad(r, e.getMessage());
            return;
        }
        String problem = ControlRecordCheck.problem(c);
        if (problem != null) { // the rule every reader of the control topic applies: ignored by all of them
            bad(r, "control sequence " + c.getSequence() + " of scope '" + c.getScope() + "' is refused: " + problem);
            return;
        }
        if (!history.onControl(c)) {
            log.info("dashboard history: ignoring control sequence {} of scope '{}' (already at {})",
                    c.getSequence(), c.getScope(), history.controlSequence(c.getScope()));
        }
    }

    private void bad(ConsumerRecord<byte[], byte[]> r, String why) {
        badRecords.increment();
        lastError = r.topic() + "@" + r.partition() + ":" + r.offset() + ": " + why;
        log.warn("dashboard history: bad record {}", lastError);
    }

    /**
     * A setting Kafka refuses ({@code security.protocol=BOGUS}, {@code acks=most}) fails every client the dashboard
     * makes, and the reader retries an outage forever: refused here, before the dashboard starts, against Kafka's own
     * definitions of the consumer's (this reader) and the producer's (the control writer) settings. Parsed only: nothing
     * is resolved or contacted (a broker not up yet is an outage the reader waits out), a config provider's placeholder
     * ({@code ${env:X}}) is left for the client, and the message names the key, never its value (it may be a secret).
     */
    private static void checkClientSettings(Properties p) {
        Map<String, Object> c = new HashMap<>();
        p.stringPropertyNames().stream().filter(k -> !p.getProperty(k).contains("${")).forEach(k -> c.put(k, p.getProperty(k)));
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        c.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        for (ConfigDef def : List.of(ConsumerConfig.configDef(), ProducerConfig.configDef())) {
            try {
                def.parse(c);
            } catch (ConfigException e) {
                // Kafka's text is "Invalid value <value> for configuration <key>: <reason>": the value is left out.
                Matcher m = KAFKA_REFUSAL.matcher(String.valueOf(e.getMessage()));
                throw new IllegalArgumentException("Kafka refuses the client settings"
                        + (m.find() ? ": '" + m.group(1) + "': " + m.group(2) : ""));
            }
        }
    }

    private static final Pattern KAFKA_REFUSAL = Pattern.compile("for configuration (\\S+): (.*)", Pattern.DOTALL);

    private Properties props() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "tierroute-dashboard-history");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(16 * 1024 * 1024));
        p.putAll(clientProperties);
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return p;
    }

    private void pause(long ms) {
        try {
            stop.await(ms, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    @Override
    public void close() {
        running = false;
        stop.countDown();
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
