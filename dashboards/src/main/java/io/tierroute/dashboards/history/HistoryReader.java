package io.tierroute.dashboards.history;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.RecordDecodeException;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.snapshot.ControlRecordCheck;
import io.tierroute.schemas.snapshot.ModelCarrier;
import io.tierroute.schemas.snapshot.ReadThrough;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
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
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
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
 * starts a new session after a back-off (below) that re-reads both topics into the reset history.
 * Undecodable records are logged, counted and skipped.
 *
 * <p><b>Kafka outages.</b> While no broker answers, {@code poll()} returns nothing, as when nothing is published: the
 * reader keeps polling and, when the broker is back, goes on from its position (no new session). It checks its
 * consumer's contact with the cluster after each poll ({@link BrokerContact}: the consumer's own metrics, no extra
 * request); after 5 s without (also when nothing ever answered) {@link #kafkaUnreachableSinceMs()} is the time of the
 * last contact and {@link #lastError()} says {@code no connection to Kafka at HOST:PORT since <ISO time> (<n> s)}
 * (its seconds refreshed every second while polling), one WARN is logged (repeated every minute), and one INFO when
 * contact is back, which clears that {@code lastError}. {@link SnapshotHistory#ready()} keeps its meaning (caught up).
 * A broker that does not answer while a session starts (the dashboard started first, a wrong port) fails the session's
 * topic lookup after 5 s instead: each such failure is a WARN {@code cannot read ... retrying in N s} and a new session
 * after the back-off (1 s doubling to 30 s, from 1 s again once a session has caught up).
 *
 * <p><b>A history that is gone.</b> The topics may be deleted and created again, or the broker replaced by a new cluster
 * on the same address, under a running reader: what it read is then no history of the new topics, whose versions and
 * control sequences may well be lower. Its consumer does not rewind silently ({@code auto.offset.reset} is
 * {@code none}): a position the new log does not hold throws, and a new cluster id or topic id, asked of the cluster
 * every 5 s and before any records polled are applied ({@link HistoryIdentity}), covers a new log that has already
 * grown past the position: none of its records reaches the old history. Either way the reader
 * logs one WARN, counts it ({@link #historyResets()}, {@link #lastHistoryReset()}), says it in {@link #lastError()} until
 * it has caught up again, and at once starts a new session that re-reads both topics into the reset history.
 *
 * <p><b>Records read ahead of what they depend on.</b> While the history's rule holds a snapshot back for a control
 * record not read yet (or an UNPIN for its named version), the reader reads both topics through ({@link ReadThrough}:
 * end offsets fetched after it was read, its positions brought up to them), so that what depends on a record no longer
 * on the topics is released rather than held back for ever, as in every selector. When catch-up ends while something
 * is held back, the history is marked ready only once a round that started after it did has ended
 * ({@link ReadThrough#caughtUp}), so the page never starts on a version released a moment later.
 */
public final class HistoryReader implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HistoryReader.class);
    private static final List<String> TOPICS = List.of(Topics.PARAMS, Topics.CONTROL);
    private static final long MIN_RETRY_BACKOFF_MS = 1000;
    private static final long MAX_RETRY_BACKOFF_MS = 30_000;

    private final String bootstrap;
    private final Properties clientProperties;
    private final SnapshotHistory history;
    private final Thread thread;
    private final CountDownLatch firstReady = new CountDownLatch(1);
    private final CountDownLatch stop = new CountDownLatch(1);
    private final LongAdder badRecords = new LongAdder();
    private final LongAdder records = new LongAdder();
    private final LongAdder historyResets = new LongAdder();
    private final HistoryIdentity identity;
    private final ReadThrough<TopicPartition> readThrough = new ReadThrough<>(); // reader thread; reset per session
    private volatile String lastHistoryReset;
    private String historyGoneError;   // reader thread: the lastError saying the session's history is gone, or null
    private long retryBackoffMs = MIN_RETRY_BACKOFF_MS; // reader thread: the wait before the next session after an error
    private volatile boolean running = true;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private volatile String lastError;
    private volatile String missingTopics; // while a session waits for topics: which do not exist, else null
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
        this(bootstrapServers, history, clientProperties, HistoryIdentity.PERIOD);
    }

    /** As above, asking the cluster for its identity every {@code identityPeriod} (tests: only before records). */
    HistoryReader(String bootstrapServers, SnapshotHistory history, Properties clientProperties,
            Duration identityPeriod) {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("bootstrap servers must be given as HOST:PORT[,HOST:PORT...]");
        }
        this.bootstrap = bootstrapServers;
        this.clientProperties = (Properties) clientProperties.clone();
        checkClientSettings(props());
        this.history = history;
        this.contact = new BrokerContact(BrokerContact.thresholdFor(clientProperties));
        this.identity = new HistoryIdentity(bootstrapServers, this.clientProperties, TOPICS, identityPeriod);
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
     * While the reader waits for its topics: {@code topic tierroute.control does not exist yet on HOST:PORT} (one
     * deleted under it, or not created yet); else null. Why a write is refused for a history not read.
     */
    public String missingTopics() {
        return missingTopics;
    }

    /**
     * While the reader has had no contact with the Kafka cluster for more than 5 s: the epoch ms of its last contact
     * (of its start when it never had one); null while in contact.
     */
    public Long kafkaUnreachableSinceMs() {
        return unreachableSince;
    }

    /** Times the history read was found gone (topics recreated or truncated, another cluster) and read again. */
    public long historyResets() {
        return historyResets.sum();
    }

    /** The last of those: ISO time and what was found, or null. */
    public String lastHistoryReset() {
        return lastHistoryReset;
    }

    /** The identity's answers taken so far (tests: waiting for the next one, not for a time it might take). */
    long identityAnswers() {
        return identity.answersTaken();
    }

    /** {@code topic}'s id in the identity's last answer, the one later answers are compared with (tests). */
    org.apache.kafka.common.Uuid identityTopicId(String topic) {
        return identity.topicId(topic);
    }

    /**
     * While Kafka is unreachable ({@link #kafkaUnreachableSinceMs()} not null): {@code no connection to Kafka at
     * HOST:PORT since <ISO time> (<n> s)}; else null. What the control writer refuses writes with.
     */
    public String kafkaOutage() {
        return unreachableSince == null ? null : contact.describe(bootstrap);
    }

    private void run() {
        try {
            sessions();
        } finally {
            identity.close();
        }
    }

    private void sessions() {
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
                        e.getCause() == null ? e.toString() : e + ": " + e.getCause().getMessage(), retryBackoffMs / 1000);
                checkContact(); // a timeout of the topic lookup: most likely no broker answers
                pause(retryBackoffMs);
                retryBackoffMs = Math.min(retryBackoffMs * 2, MAX_RETRY_BACKOFF_MS);
            }
        }
    }

    private void session() {
        history.reset();
        readThrough.reset();
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
            try {
                readAndFollow(c, parts);
            } catch (InvalidOffsetException e) {
                identity.forget(); // the next history is read from the topics as they are now: their ids are the reference
                historyGone(outOfRange(c, e));
            }
        } finally {
            consumer = null;
        }
    }

    /**
     * Reads both topics from the beginning, marks the history ready once at the end offsets of the start, and follows;
     * returns on close() or when the topics' identity changed (the history read is gone: the next session reads anew).
     */
    private void readAndFollow(KafkaConsumer<byte[], byte[]> c, List<TopicPartition> parts) {
        Map<TopicPartition, Long> targets = new HashMap<>(c.endOffsets(parts, Duration.ofSeconds(30)));
        boolean markedReady = false; // this session's caughtUp() done
        while (running) {
            ConsumerRecords<byte[], byte[]> polled = c.poll(Duration.ofMillis(200));
            checkContact(); // an empty poll: nothing published, or no broker (poll() does not tell)
            // Records are applied only once the cluster has said, after their fetch, that the topics are still the
            // ones this history came from: a new cluster's or topic's log is fetched from as soon as it answers.
            String changed = polled.isEmpty() ? identity.check() : identity.confirm(() -> running);
            if (changed != null) {
                historyGone(changed);
                return;
            }
            if (!running || Thread.currentThread().isInterrupted()) {
                return; // closed (or interrupted) while the cluster was asked: what it did not confirm is not applied
            }
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
            readThrough.afterPoll(history, () -> endOffsets(c), tp -> position(c, tp));
            if (!markedReady) {
                targets.entrySet().removeIf(e -> c.position(e.getKey()) >= e.getValue());
                // Not while a snapshot read during catch-up is held back: a round of reading through releases it first
                // if its control record is gone (the job published during start-up), so ready is never on a stale one.
                if (targets.isEmpty() && readThrough.caughtUp(history)) {
                    markedReady = true;
                    caughtUp();
                }
            }
        }
    }

    /** The end offsets of every partition read, for a round of {@link ReadThrough}; null when Kafka does not answer. */
    private static Map<TopicPartition, Long> endOffsets(KafkaConsumer<byte[], byte[]> c) {
        try {
            return c.endOffsets(c.assignment(), Duration.ofSeconds(2));
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            return null;
        }
    }

    /** The consumer's position on {@code tp}, or -1 when it has none this round (a leader change, a reset). */
    private static long position(KafkaConsumer<byte[], byte[]> c, TopicPartition tp) {
        try {
            return c.position(tp, Duration.ZERO);
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            return -1;
        }
    }

    private void caughtUp() {
        retryBackoffMs = MIN_RETRY_BACKOFF_MS; // the next failure is a new one, not the last one's retry
        history.markReady();
        firstReady.countDown();
        if (historyGoneError != null) {
            if (historyGoneError.equals(lastError)) {
                lastError = null; // read again: the history shown is the topics' as they are
            }
            historyGoneError = null;
        }
        log.info("dashboard history: caught up ({} records, scopes {})", records.sum(), history.scopes());
    }

    /**
     * The history this session read is no longer on the topics: one WARN, counted and said in the status until the next
     * session, started at once, has read both topics again from the beginning into the reset history.
     */
    private void historyGone(String why) {
        historyResets.increment();
        lastHistoryReset = BrokerContact.isoTime(System.currentTimeMillis()) + ": " + why;
        historyGoneError = why + "; re-reading " + TOPICS + " from the beginning";
        lastError = historyGoneError;
        log.warn("dashboard history: {}; re-reading {} from the beginning (the history read so far is dropped)", why,
                TOPICS);
    }

    /**
     * Why the consumer's position is no longer in the log: {@code tierroute.params was recreated or truncated
     * (tierroute.params-0: position 130, the log now holds offsets 0 to 38)}, the log's ends asked where they can be.
     */
    private static String outOfRange(KafkaConsumer<byte[], byte[]> c, InvalidOffsetException e) {
        Map<TopicPartition, Long> positions = e instanceof OffsetOutOfRangeException o ? o.offsetOutOfRangePartitions()
                : Map.of();
        Map<TopicPartition, Long> starts;
        Map<TopicPartition, Long> ends;
        try {
            starts = c.beginningOffsets(e.partitions(), Duration.ofSeconds(2));
            ends = c.endOffsets(e.partitions(), Duration.ofSeconds(2));
        } catch (RuntimeException unknown) {
            starts = Map.of();
            ends = Map.of();
        }
        TreeSet<String> topics = new TreeSet<>();
        List<String> where = new ArrayList<>();
        for (TopicPartition tp : e.partitions().stream().sorted(Comparator.comparing(TopicPartition::toString)).toList()) {
            topics.add(tp.topic());
            where.add(tp + ": position " + (positions.containsKey(tp) ? positions.get(tp) : "unknown") + (ends.containsKey(tp)
                    ? ", the log now holds offsets " + starts.get(tp) + " to " + ends.get(tp) : ""));
        }
        return String.join(" and ", topics) + (topics.size() > 1 ? " were" : " was") + " recreated or truncated ("
                + String.join("; ", where) + ")";
    }

    private List<TopicPartition> awaitPartitions(KafkaConsumer<byte[], byte[]> c) {
        String waiting = null; // what lastError says while topics are missing, or null
        while (running) {
            List<TopicPartition> parts = new ArrayList<>();
            List<String> missing = new ArrayList<>();
            for (String t : TOPICS) {
                List<PartitionInfo> infos = c.partitionsFor(t, Duration.ofSeconds(5));
                if (infos == null || infos.isEmpty()) {
                    missing.add(t);
                } else {
                    infos.forEach(i -> parts.add(new TopicPartition(i.topic(), i.partition())));
                }
            }
            checkContact();
            if (missing.isEmpty()) {
                missingTopics = null;
                if (waiting != null && waiting.equals(lastError)) {
                    lastError = historyGoneError; // the topics are there: what stays to say is a re-read under way
                }
                return parts;
            }
            // The ones missing, not the list: an operator told both are missing looks for the wrong one.
            String now = (missing.size() == 1 ? "topic " + missing.get(0) + " does" : "topics " + missing + " do")
                    + " not exist yet on " + bootstrap;
            missingTopics = now;
            if (!now.equals(waiting)) {
                log.warn("dashboard history: waiting for {}", now.replace(" does not exist yet on ", " on ")
                        .replace(" do not exist yet on ", " on "));
                waiting = now;
                lastError = now;
            } else if (lastError == null) { // an outage's end cleared it while the topics are still missing
                lastError = now;
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
        history.onSnapshot(s, r.offset(), reference);
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
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(16 * 1024 * 1024));
        p.putAll(clientProperties);
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        // Every session seeks to the beginning itself; a position the log no longer holds must throw, never rewind
        // silently into a history mixed with the one read (whatever a client settings file says).
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
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
