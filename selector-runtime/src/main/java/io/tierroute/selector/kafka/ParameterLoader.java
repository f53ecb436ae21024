package io.tierroute.selector.kafka;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.RecordDecodeException;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.UnknownSchemaException;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.snapshot.ActivationRule;
import io.tierroute.schemas.snapshot.ControlRecordCheck;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.kafka.SnapshotRecordReader.Where;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Follows {@code tierroute.params} and {@code tierroute.control} and keeps the selector's
 * {@link ParameterStore} on the version {@link ActivationRule} makes active in the served scope.
 *
 * <p><b>Thread.</b> One thread ({@code tierroute-params-loader}) owns a consumer assigned to every
 * partition of both topics (no consumer group, no committed offsets), the rule and the retained
 * records; nothing else touches them. Other threads read an immutable {@link Status} published
 * through a volatile field, and counters.
 *
 * <p><b>Start-up.</b> The thread seeks both topics to the beginning and reads their end offsets
 * (the last stable offsets: the consumer reads committed records only, as the job's sink is
 * transactional). Until its position reaches those offsets on every partition it only records
 * snapshots and control records in the rule; then it activates the rule's version once and reports
 * ready ({@link #awaitReady}). So a start-up applies the final state once, never every historic
 * version. Missing topics are retried every second; an empty topic is caught up at once. Catch-up
 * compares {@code position >= endOffset}, never an equality with the last record's offset + 1: with
 * {@code read_committed} the last offsets of a partition may be a commit / abort marker or the records
 * of an aborted transaction, which are never returned, but a fetch moves the position past them.
 *
 * <p><b>Failures.</b> An exception from the consumer (a broker that went away during the catch-up, a
 * timeout on end offsets, a corrupt batch) does not end the loader: it logs, counts
 * ({@code tierroute_params_loader_restarts_total}), waits (1 s, doubling to 30 s) and starts a new
 * session with a fresh consumer that re-reads both topics from the beginning into a fresh rule. The
 * applied set stays in the store meanwhile; the new session swaps only if its rule's version differs.
 *
 * <p><b>Kafka outages.</b> While no broker is reachable the loader keeps polling, and when the broker is back the same
 * consumer goes on from its position (no new session, nothing re-read). The status says so meanwhile, in
 * {@link Status#kafkaUnreachableSinceMs()} and {@link Status#lastError()}, and the log once a minute
 * ({@link OutageReport}). (The Kafka client's own connection warnings, several a second, are what the tierroute
 * command's logging configuration silences.)
 *
 * <p><b>A history that is gone.</b> The topics may be deleted and created again, or the broker replaced by a new
 * cluster on the same address, under a running loader: what it read is then no history of the new topics, whose
 * versions and control sequences may well be lower. Its consumer does not rewind silently ({@code auto.offset.reset}
 * is {@code none}): a position the new log does not hold throws, and a new cluster id or topic id, asked of the cluster
 * every few seconds ({@link HistoryIdentity}), covers a new log that has already grown past the position. Either way
 * the loader logs one WARN, counts it ({@link Status#historyResets()}, {@code tierroute_params_history_resets_total}),
 * and starts a new session at once that re-reads both topics from the beginning into a fresh rule, as at start-up. The
 * applied set is served until that catch-up ends; then the new history's version is applied even when its number is
 * lower than, or equal to, the one served (the same number may now be other parameters). A new history without a
 * usable version of the served scope leaves the old set in place, with a WARN.
 *
 * <p><b>Topics that grow.</b> Both topics are meant to keep one partition, the order of a scope's records. Partitions
 * added to either after the catch-up ({@link PartitionWatch}, looked for as often as the identity) are read from their
 * beginning, so the snapshots and control records whose key hashes there still reach the rule, logged (a WARN that
 * says to go back to one partition) and counted ({@code tierroute_params_partitions_added_total}).
 *
 * <p><b>Follow.</b> After each poll it asks the rule for the served scope's version and, when it
 * differs from the applied one, decodes that snapshot in full, converts it ({@link SnapshotConverter})
 * and swaps it in ({@link ParameterStore#activate}). Pins, rollbacks, the first activation and version jumps are
 * logged at INFO; a routine swap (the next version, nothing pinned) at most once a minute, with how many there were.
 *
 * <p><b>Models by reference.</b> A snapshot may name the record that carries its quantile forest instead of carrying
 * it; {@link ActiveSnapshotReader} finds that model. A snapshot whose carrier is gone, or carries no model, is refused
 * like one that cannot be used.
 *
 * <p><b>Bad records.</b> Undecodable bytes, an unknown writer schema, and snapshots whose values the
 * selector cannot use are logged and counted ({@code tierroute_params_bad_records_total{topic,reason}});
 * the active set stays. A version that failed to convert is not retried until it is published again
 * (or the loader restarts). A version whose re-read failed for a transient reason (a timeout) is
 * retried with back-off ({@code tierroute_params_reread_failures_total}), so a rollback pin is never
 * abandoned because the broker hiccupped once.
 *
 * <p><b>Retained records.</b> For the served scope the loader keeps offsets and a bounded LRU of encoded records, and
 * reads back what it no longer holds ({@link ServedScopeRecords}), so its own memory is bounded whatever the history's
 * length; {@link ActivationRule} (schemas) still keeps one small map entry per accepted version of every scope, which
 * grows with the history until {@code tierroute snapshots trim} deletes old versions with tombstones.
 */
public final class ParameterLoader implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ParameterLoader.class);

    /** Reasons of {@code tierroute_params_bad_records_total}. */
    public enum BadReason {
        CORRUPT, UNKNOWN_SCHEMA, UNUSABLE, MISSING, TOMBSTONE;

        /** Why bytes did not decode: a writer schema this build does not know, or anything else. */
        static BadReason of(RecordDecodeException e) {
            return e instanceof UnknownSchemaException ? UNKNOWN_SCHEMA : CORRUPT;
        }
    }

    /**
     * What the loader knows about one scope; for the served scope only ({@code -1} / null for the others) the accepted
     * versions indexed and, when the scope's newest version is one the validation gate rejected, that version (else
     * null): the fits are being refused, and an older version, or none, is served.
     */
    public record ScopeStatus(String scope, Long activeVersion, boolean pinned, Long pinnedVersion,
                              long controlSequence, int acceptedVersions, Long newestRejected) {}

    /**
     * A consistent view for status endpoints and metrics.
     *
     * @param ready          caught up with the topics as they were at start
     * @param servedScope    the scope this selector applies
     * @param appliedVersion the version in the store (0: none applied yet)
     * @param startupMillis  time from start to caught up, or -1
     * @param lastError      the last problem (bad record, unusable snapshot, no connection to Kafka), or null
     * @param scopes         every scope seen on either topic
     * @param kafkaUnreachableSinceMs while the loader has had no contact with the Kafka cluster for longer than
     *                       {@link BrokerContact#DEFAULT_THRESHOLD}: the epoch ms of its last contact (of its start
     *                       when it never had one); null while in contact. {@code ready} stays as it was meanwhile.
     * @param historyResets  times the history read was found gone (topics recreated or truncated, another cluster) and
     *                       both topics were re-read from the beginning
     * @param lastHistoryReset the last of those: ISO time and what was found, or null
     */
    public record Status(boolean ready, String servedScope, long appliedVersion, long startupMillis, String lastError,
                         Map<String, ScopeStatus> scopes, Long kafkaUnreachableSinceMs, long historyResets,
                         String lastHistoryReset) {}

    /** Accepted versions of the served scope whose offset is indexed (the highest ones). */
    static final int DEFAULT_INDEXED_VERSIONS = 100_000;
    /** Bytes of encoded snapshots the LRU may hold (besides the most recent one). */
    static final long MAX_RETAINED_BYTES = 64L * 1024 * 1024;

    private final KafkaSettings settings;
    private final String scope;
    private final ParameterStore store;
    private final SnapshotConverter converter;
    private ActivationRule rule = new ActivationRule();                    // loader thread only; new per session
    private final SnapshotProjection projection = new SnapshotProjection();
    private final SnapshotRecordReader reader;                             // versions no longer retained
    private final ServedScopeRecords records;                              // served scope: offsets, LRU, carriers
    private final ActiveSnapshotReader activeReader;                       // active version → whole snapshot
    private final HistoryIdentity identity;                                // the cluster and topic ids read from
    private final PartitionWatch partitionWatch;                           // partitions added to either topic
    private final Thread thread;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final CountDownLatch stopSignal = new CountDownLatch(1);      // counted down by close(): ends back-off waits
    private volatile boolean running = true;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private volatile Status status;

    private long appliedVersion;   // loader thread only
    private long failedVersion = -1;
    private long retryVersion = -1;  // a version whose re-read failed transiently, retried at retryAtNanos
    private long retryAtNanos;
    private long retryBackoffMs = RestartBackoff.MIN_MS;
    private String lastError;
    private String scopeUnknownError;  // loader thread: the lastError saying the topics never named the served scope
    private boolean caughtUp;          // loader thread: this session has read up to the end offsets at its start
    private String historyGone;        // loader thread: why this session's history is no longer on the topics, or null
    private boolean appliedFromGoneHistory; // loader thread: the applied set came from a history since found gone
    private final SwapLog swapLog;     // loader thread only
    private volatile String lastHistoryReset;
    private long startNanos;
    private long sessionStartNanos;
    private long startupMillis = -1;

    private final BadRecordCounts bad = new BadRecordCounts();
    private final LongAdder paramsRecords = new LongAdder();
    private final LongAdder controlRecords = new LongAdder();
    private final LongAdder swaps = new LongAdder();
    private final LongAdder rereadFailures = new LongAdder();
    private final LongAdder restarts = new LongAdder();
    private final LongAdder staleControl = new LongAdder();
    private final LongAdder historyResets = new LongAdder();
    private final AtomicLong lastSwapNanos = new AtomicLong(-1);
    private final LogLimiter badLog = new LogLimiter(20, 1000);
    private final BrokerContact contact;   // checked by the loader thread; read by status() through Status
    private final OutageReport outage;     // loader thread

    /**
     * @param settings  the kafka section (bootstrap servers, scope, client id, params settings)
     * @param store     the store to swap sets into
     * @param converter snapshot → parameter set for this selector's workers
     */
    public ParameterLoader(KafkaSettings settings, ParameterStore store, SnapshotConverter converter) {
        this(settings, store, converter, DEFAULT_INDEXED_VERSIONS);
    }

    /** As above, with the number of accepted versions whose offset is indexed (tests use a small one). */
    ParameterLoader(KafkaSettings settings, ParameterStore store, SnapshotConverter converter, int indexedVersions) {
        this(settings, store, converter, indexedVersions, HistoryIdentity.DEFAULT_PERIOD);
    }

    /**
     * As above, asking the cluster for its identity, and the topics for their partitions, every {@code identityPeriod}
     * (tests: only before records).
     */
    ParameterLoader(KafkaSettings settings, ParameterStore store, SnapshotConverter converter, int indexedVersions,
            Duration identityPeriod) {
        if (indexedVersions < 1) {
            throw new IllegalArgumentException("indexedVersions must be ≥ 1, got " + indexedVersions);
        }
        this.settings = settings;
        this.scope = settings.scope();
        this.swapLog = new SwapLog(scope);
        this.store = store;
        this.converter = converter;
        this.contact = new BrokerContact(settings.bootstrapServers(), BrokerContact.thresholdFor(settings.properties()));
        this.outage = new OutageReport(contact, scope, error -> {
            lastError = error;
            publishProblem();
        });
        this.reader = new SnapshotRecordReader(settings, scope, () -> running, contact);
        this.records = new ServedScopeRecords(indexedVersions,
                new RetainedRecords(settings.params().retainedSnapshots(), MAX_RETAINED_BYTES), reader);
        this.activeReader = new ActiveSnapshotReader(scope, records, () -> running);
        this.identity = new HistoryIdentity(() -> KafkaClients.admin(settings, "params-identity"),
                settings.bootstrapServers(), List.of(Topics.PARAMS, Topics.CONTROL), identityPeriod);
        this.partitionWatch = new PartitionWatch(List.of(Topics.PARAMS, Topics.CONTROL), identityPeriod);
        this.status = new Status(false, scope, store.current().version(), -1, null, Map.of(), null, 0, null);
        this.thread = new Thread(this::run, "tierroute-params-loader");
        this.thread.setDaemon(true);
    }

    /** Starts the loader thread; returns at once ({@link #awaitReady} waits for the catch-up). */
    public ParameterLoader start() {
        startNanos = System.nanoTime();
        thread.start();
        return this;
    }

    /** Waits until the loader has caught up with both topics as they were at start. */
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        return ready.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    public boolean isReady() {
        return ready.getCount() == 0;
    }

    public Status status() {
        return status;
    }

    public String scope() {
        return scope;
    }

    /** Records that were bad on {@code topic} (params or control) for {@code reason}. */
    public long badRecords(String topic, BadReason reason) {
        return bad.count(topic, reason);
    }

    /** All bad records on both topics. */
    public long badRecords() {
        return bad.total();
    }

    public long paramsRecordsRead() { return paramsRecords.sum(); }
    public long controlRecordsRead() { return controlRecords.sum(); }
    public long swaps() { return swaps.sum(); }
    public long rereads() { return reader.rereads(); }
    /** Re-reads of an active version that failed for a transient reason (retried with back-off). */
    public long rereadFailures() { return rereadFailures.sum(); }
    /** Versions older than the offset index looked up by scanning the params topic. */
    public long scans() { return reader.scans(); }
    /** Sessions restarted after a consumer error. */
    public long restarts() { return restarts.sum(); }
    public long staleControlRecords() { return staleControl.sum(); }
    /** Times the history read was found gone and both topics were re-read from the beginning. */
    public long historyResets() { return historyResets.sum(); }
    /** Partitions added to the params or control topic while the loader followed them. */
    public long partitionsAdded() { return partitionWatch.added(); }
    /** Answers of the cluster to the identity check so far (tests wait for one past a broker restart). */
    long historyIdentityAnswers() { return identity.answers(); }
    public long unknownWorkers() { return converter.unknownWorkers(); }

    /** Decode + convert + swap time of the last swap, ns, or -1. */
    public long lastSwapNanos() { return lastSwapNanos.get(); }

    /** Where the loader reads (for messages). */
    public String bootstrapServers() { return settings.bootstrapServers(); }

    /** Whether the loader is in contact with the Kafka cluster (as its {@link #status()} says). */
    public boolean kafkaConnected() { return status.kafkaUnreachableSinceMs() == null; }

    /** Time since the loader's last contact with the Kafka cluster while it has none (as its status says), else 0. */
    public long kafkaUnreachableMillis() {
        Long since = status.kafkaUnreachableSinceMs();
        return since == null ? 0 : Math.max(0, System.currentTimeMillis() - since);
    }

    // ---- the loader thread ----

    private void run() {
        try {
            SessionLoop.run(() -> running, this::session, (e, wait) -> {
                restarts.increment();
                lastError = "loader restarting in " + wait + " ms after: " + SessionLoop.describe(e);
                log.error("params loader: {}; keeping parameter version {} of scope '{}' meanwhile", lastError,
                        store.current().version(), scope, SessionLoop.traceWorthLogging(e));
                publishStatus();
            }, this::pause);
        } finally {
            identity.close();
        }
    }

    /** Waits {@code millis} or until close(); never interrupts a Kafka client. */
    private void pause(long millis) {
        try {
            stopSignal.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    /**
     * One consumer's life: catch up from the beginning, then follow until close(), an error, or the history it read is
     * found gone (then it returns and the next session, started at once, re-reads both topics).
     */
    private void session() {
        forgetHistory();
        try (KafkaConsumer<byte[], byte[]> c = KafkaClients.historyConsumer(settings, "params")) {
            consumer = c;
            contact.watch(c);
            if (!running) {
                return;
            }
            List<TopicPartition> parts = discover(c);
            if (parts == null) {
                return;
            }
            c.assign(parts);
            c.seekToBeginning(parts);
            try {
                readAndFollow(c, parts);
            } catch (InvalidOffsetException e) {
                historyGone = KafkaClients.outOfRange(c, e);
                identity.forget(); // the new history is read from the topics as they are now: their ids are the reference
            }
            if (historyGone != null) {
                startAgainFromScratch(historyGone);
            }
        } finally {
            consumer = null;
        }
    }

    /** A new session reads the topics from the beginning into a fresh rule: forget what the last one read. */
    private void forgetHistory() {
        sessionStartNanos = System.nanoTime();
        rule = new ActivationRule();
        records.clear();
        failedVersion = -1;
        retryVersion = -1;
        caughtUp = false;
        historyGone = null;
    }

    /** Reads up to the end offsets at the start, activates once, then follows; returns when closed or history is gone. */
    private void readAndFollow(KafkaConsumer<byte[], byte[]> c, List<TopicPartition> parts) {
        Map<TopicPartition, Long> targets = new HashMap<>(c.endOffsets(parts));
        log.info("params loader: catching up with {} and {} (end offsets {}), serving scope '{}'",
                Topics.PARAMS, Topics.CONTROL, targets, scope);
        while (running) {
            ConsumerRecords<byte[], byte[]> records = c.poll(Duration.ofMillis(caughtUp ? 500 : 100));
            checkContact(); // an empty poll: nothing published, or no broker (poll() does not tell)
            // Records are applied only once the cluster has said, after their fetch, that the topics are still the
            // ones this history came from: a new cluster's or topic's log is fetched from as soon as it answers.
            historyGone = records.isEmpty() ? identity.check() : identity.confirm(() -> running);
            if (historyGone != null) {
                return; // what this poll returned is of the new history: the next session reads it all
            }
            if (!running || Thread.currentThread().isInterrupted()) {
                return; // closed (or interrupted) while the cluster was asked: what it did not confirm is not applied
            }
            for (ConsumerRecord<byte[], byte[]> r : records) {
                if (r.topic().equals(Topics.PARAMS)) {
                    onParams(r);
                } else {
                    onControl(r);
                }
            }
            if (!caughtUp) {
                // >=, not ==: markers and aborted records at the end are skipped, never returned.
                targets.entrySet().removeIf(e -> c.position(e.getKey()) >= e.getValue());
                if (targets.isEmpty()) {
                    onCaughtUp();
                }
            } else if (!records.isEmpty() || (retryVersion >= 0 && System.nanoTime() - retryAtNanos >= 0)) {
                activateIfChanged();
            }
            if (caughtUp && !records.isEmpty()) {
                publishStatus();
            }
            List<TopicPartition> added = caughtUp ? partitionWatch.newPartitions(c, parts) : List.of();
            if (!added.isEmpty()) {
                readAdded(c, parts, added);
            }
        }
    }

    /**
     * Partitions added to the topics since {@code parts} were assigned: read from their beginning, so what is written
     * there is not lost. But both topics are meant to have one partition (Topics.specs): with more, a scope's records
     * may lie on several, and no reader sees them in the order they were written (a trim's tombstone read before the
     * snapshot it deletes; compaction never pairing them). So the WARN says so.
     */
    private void readAdded(KafkaConsumer<byte[], byte[]> c, List<TopicPartition> parts, List<TopicPartition> added) {
        PartitionWatch.readFromTheBeginning(c, parts, added);
        log.warn("params loader: new partition(s) {} of {} / {}; reading them from their beginning. These topics are "
                + "meant to have one partition: across several, readers no longer see a scope's records in the order "
                + "they were written (deploy/README.md, ProjectTopics)", added, Topics.PARAMS, Topics.CONTROL);
    }

    /** The session has read the topics as they were at its start: activate the rule's version once, report ready. */
    private void onCaughtUp() {
        caughtUp = true;
        boolean first = !isReady();
        boolean afterReset = appliedFromGoneHistory;
        startupMillis = first ? TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos) : startupMillis;
        activateIfChanged();
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - (first ? startNanos : sessionStartNanos));
        log.info("params loader {} in {} ms: {} snapshot and {} control records read; scope '{}' at version {}{}",
                first ? "ready" : "caught up again", tookMillis, paramsRecords.sum(), controlRecords.sum(), scope,
                appliedVersion, rule.isPinned(scope) ? " (pinned)" : "");
        if (afterReset && rule.activeVersion(scope).isEmpty()) {
            log.warn("params loader: {} and {} as they are now hold no usable version of scope '{}'; serving version {} "
                    + "of the history that is gone until one is published", Topics.PARAMS, Topics.CONTROL, scope,
                    store.current().version());
        }
        warnIfScopeUnknown(first || afterReset);
        publishStatus();
        ready.countDown();
    }

    /**
     * The history this session read is gone: one WARN, counted and shown in the status; the next session (at once)
     * re-reads both topics from the beginning, and the applied set, from the old history, is served until it has.
     */
    private void startAgainFromScratch(String why) {
        appliedFromGoneHistory = true;
        lastHistoryReset = BrokerContact.isoTime(System.currentTimeMillis()) + ": " + why;
        log.warn("params loader: {}; re-reading both topics from the beginning (serving parameter version {} of scope "
                + "'{}' until then)", why, store.current().version(), scope);
        historyResets.increment(); // before the status, which carries the count
        publishStatus();
    }

    /**
     * A served scope the topics never named, while they name others, is most likely a misspelt {@code kafka.scope}: the
     * selector would serve its configured parameters for good without a word.
     */
    private void warnIfScopeUnknown(boolean fromTheBeginning) {
        List<String> known = rule.scopes().stream().sorted().toList();
        if (fromTheBeginning && !known.isEmpty() && !known.contains(scope)) {
            scopeUnknownError = "no snapshot or control record of scope '" + scope + "' on " + Topics.PARAMS + " / "
                    + Topics.CONTROL + ", which hold scopes " + known + "; serving "
                    + (appliedVersion == 0 ? "the configured parameters" : "parameter version " + appliedVersion)
                    + " until one is published (is kafka.scope spelt right?)";
            lastError = scopeUnknownError;
            log.warn("params loader: {}", lastError);
        }
    }

    /** A record of the served scope was read: the warning that the topics never named it no longer holds. */
    private void servedScopeNamed() {
        if (scopeUnknownError != null) {
            if (scopeUnknownError.equals(lastError)) {
                lastError = null; // only that message: a later problem stays until its own remedy
            }
            scopeUnknownError = null;
        }
    }

    /** Both topics' partitions; retries every second while a topic is missing. Null when closed. */
    private List<TopicPartition> discover(KafkaConsumer<byte[], byte[]> c) {
        boolean warned = false;
        while (running) {
            List<TopicPartition> params = KafkaClients.partitions(c, Topics.PARAMS, Duration.ofSeconds(5));
            // Not both 5 s timeouts when the broker does not answer: the status tells an outage sooner.
            List<TopicPartition> control = params.isEmpty() ? List.of()
                    : KafkaClients.partitions(c, Topics.CONTROL, Duration.ofSeconds(5));
            checkContact();
            if (!params.isEmpty() && !control.isEmpty()) {
                List<TopicPartition> all = new ArrayList<>(params);
                all.addAll(control);
                return all;
            }
            if (!warned) {
                log.warn("params loader: no partitions of {} from {} yet (the broker does not answer, or the topic "
                        + "does not exist); retrying every second",
                        params.isEmpty() ? Topics.PARAMS : Topics.CONTROL, settings.bootstrapServers());
                warned = true;
            }
            pause(1000);
        }
        return null;
    }

    private void onParams(ConsumerRecord<byte[], byte[]> r) {
        paramsRecords.increment();
        if (r.value() == null) {
            onParamsTombstone(r);
            return;
        }
        SnapshotProjection.Head h;
        try {
            h = projection.read(r.value());
        } catch (RecordDecodeException e) {
            bad(Topics.PARAMS, BadReason.of(e),
                    r, e.getMessage());
            return;
        }
        if (h.version() < 1) {
            bad(Topics.PARAMS, BadReason.UNUSABLE, r, "snapshot version " + h.version() + " < 1");
            return;
        }
        rule.onSnapshot(h.scope(), h.version(), h.status(), h.controlSequence());
        if (!h.scope().equals(scope)) {
            return;
        }
        servedScopeNamed();
        records.onRecord(h.version(), h.status(), h.carriesModel(), new Where(r.partition(), r.offset()), r.value());
        if (h.status() == SnapshotStatus.ACCEPTED && h.version() == failedVersion) {
            failedVersion = -1; // republished: try it again
        }
    }

    /** A tombstone deletes a version (history trimming): it can no longer become active. */
    private void onParamsTombstone(ConsumerRecord<byte[], byte[]> r) {
        Topics.ParamsKey k = Topics.ParamsKey.parse(r.key());
        if (k == null) {
            bad(Topics.PARAMS, BadReason.TOMBSTONE, r, "tombstone with key '"
                    + (r.key() == null ? "" : new String(r.key(), StandardCharsets.UTF_8)) + "' that names no scope#version");
            return;
        }
        long version = k.version();
        String s = k.scope();
        rule.onSnapshot(s, version, SnapshotStatus.REJECTED, 0);
        if (s.equals(scope)) {
            records.onTombstone(version);
        }
    }

    private void onControl(ConsumerRecord<byte[], byte[]> r) {
        controlRecords.increment();
        if (r.value() == null) {
            bad(Topics.CONTROL, BadReason.TOMBSTONE, r, "control tombstone ignored: a scope's pin state is only "
                    + "changed by a PIN or UNPIN record");
            return;
        }
        SnapshotControl control;
        try {
            control = Codecs.SNAPSHOT_CONTROL.decode(r.value());
        } catch (RecordDecodeException e) {
            bad(Topics.CONTROL, BadReason.of(e),
                    r, e.getMessage());
            return;
        }
        if (control.getAction() == ControlAction.PIN && control.getVersion() == null) {
            bad(Topics.CONTROL, BadReason.UNUSABLE, r, "PIN of scope '" + control.getScope() + "' names no version");
            return;
        }
        String problem = ControlRecordCheck.problem(control);
        if (problem != null) { // the rule ignores it too, but it is not stale: say what is wrong with it
            bad(Topics.CONTROL, BadReason.UNUSABLE, r, "control record of scope '" + control.getScope() + "' ignored: "
                    + problem);
            return;
        }
        if (!rule.onControl(control)) {
            onStaleControl(r, control);
            return;
        }
        if (control.getScope().toString().equals(scope)) {
            servedScopeNamed();
        }
        if (isReady() || control.getScope().toString().equals(scope)) {
            log.info("params loader: control of scope '{}': {} version {} (sequence {}, by {}: {})", control.getScope(),
                    control.getAction(), control.getVersion(), control.getSequence(), control.getActor(),
                    control.getReason());
        }
    }

    /**
     * A control record whose sequence is not above its scope's last one. Read during catch-up it is history: a writer
     * that lost a race long ago (the writers' fence lets it through only after another took the sequence), ignored by
     * every reader alike and reported when it was written, so INFO. After catch-up it is news, so WARN: two writers
     * racing, or a control topic that is no longer the history this loader read (the reset that should follow is in
     * the log too, see {@link HistoryIdentity}).
     */
    private void onStaleControl(ConsumerRecord<byte[], byte[]> r, SnapshotControl control) {
        staleControl.increment();
        String s = control.getScope().toString();
        if (!caughtUp) {
            log.info("params loader: ignoring control record sequence {} of scope '{}' (already at {})",
                    control.getSequence(), s, rule.controlSequence(s));
        } else if (badLog.allow()) {
            log.warn("params loader: ignoring control record sequence {} of scope '{}' at {}@{}:{}: the scope is at "
                            + "sequence {} already (another writer took that sequence first, or the control topic "
                            + "was replaced)", control.getSequence(), s, r.topic(), r.partition(), r.offset(),
                    rule.controlSequence(s));
        }
    }

    private void activateIfChanged() {
        OptionalLong want = rule.activeVersion(scope);
        // After a reset the same number may be other parameters: the new history's version is applied whatever it is.
        boolean applied = want.isPresent() && want.getAsLong() == appliedVersion && !appliedFromGoneHistory;
        if (want.isEmpty() || applied || want.getAsLong() == failedVersion) {
            retryVersion = -1;
            return;
        }
        long version = want.getAsLong();
        if (version == retryVersion && System.nanoTime() - retryAtNanos < 0) {
            return; // waiting to retry a re-read that failed transiently
        }
        long begin = System.nanoTime();
        ActiveSnapshotReader.Outcome read = activeReader.read(version);
        if (!running || read instanceof ActiveSnapshotReader.Stopped) {
            return; // closed during a read back: nothing is applied
        }
        if (read instanceof ActiveSnapshotReader.Retry retry) {
            retryLater(version, retry.what());
            return;
        }
        if (read instanceof ActiveSnapshotReader.Refused refused) {
            giveUp(version, refused.reason(), refused.message());
            return;
        }
        ParameterSnapshot snapshot = ((ActiveSnapshotReader.Read) read).snapshot();
        Where where = records.acceptedAt(version);
        String source = Topics.PARAMS + (where == null ? "" : "@" + where.partition() + ":" + where.offset());
        TreeSet<String> unknown = new TreeSet<>();
        ParameterSet next;
        try {
            next = converter.convert(snapshot, source, unknown);
        } catch (SnapshotConverter.UnusableSnapshotException e) {
            giveUp(version, BadReason.UNUSABLE, "version " + version + " of scope '" + scope + "' cannot be used: "
                    + e.getMessage());
            return;
        }
        if (!unknown.isEmpty()) {
            log.warn("params loader: version {} of scope '{}' has rho for {} worker(s) this selector does not have, "
                    + "ignored: {}", version, scope, unknown.size(), abbreviate(unknown));
        }
        if (!store.activate(next)) {
            giveUp(version, BadReason.UNUSABLE, "version " + version + " was refused by the parameter store");
            return;
        }
        long took = System.nanoTime() - begin;
        lastSwapNanos.set(took);
        swaps.increment();
        long was = appliedVersion;
        boolean afterReset = appliedFromGoneHistory;
        appliedVersion = version;
        appliedFromGoneHistory = false;
        retryVersion = -1;
        records.carriers().applied(snapshot);
        failedVersion = -1;
        // The status right after the swap, before the log line: a reader of both (the demo's status line) should not
        // find the new parameters served under the old status for as long as a log write takes.
        publishStatus();
        swapLog.swapped(version, was, afterReset, rule.isPinned(scope), rule.controlSequence(scope), took);
    }

    /**
     * A record that activating {@code version} needs could not be re-read for a transient reason: retried with a
     * back-off (1 s, doubling to 30 s while the same version fails), so a rollback pin is never abandoned because the
     * broker hiccupped once. The swap clears it.
     */
    private void retryLater(long version, String what) {
        retryBackoffMs = version == retryVersion ? Math.min(retryBackoffMs * 2, RestartBackoff.MAX_MS) : RestartBackoff.MIN_MS;
        retryVersion = version;
        retryAtNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(retryBackoffMs);
        lastError = what + " could not be re-read from " + Topics.PARAMS + " (transient); retrying in " + retryBackoffMs
                + " ms";
        if (badLog.allow()) {
            log.warn("params loader: {}; keeping parameter version {}", lastError, store.current().version());
        }
        publishStatus();
        rereadFailures.increment(); // after the status: whoever sees the count sees its lastError
    }

    /**
     * {@code version} cannot be used: a bad record, not tried again until it is published again. A re-read of it that
     * failed transiently before is no longer pending, so a republished version's back-off starts at its first step.
     */
    private void giveUp(long version, BadReason reason, String message) {
        retryVersion = -1;
        failedVersion = version;
        bad(Topics.PARAMS, reason, null, message);
    }

    private void bad(String topic, BadReason reason, ConsumerRecord<byte[], byte[]> r, String message) {
        String where = r == null ? topic : topic + "@" + r.partition() + ":" + r.offset();
        lastError = where + ": " + message;
        if (badLog.allow()) {
            log.warn("params loader: bad record {} ({}): {}; keeping parameter version {} of scope '{}'", where,
                    reason.name().toLowerCase(), message, store.current().version(), scope);
        }
        if (isReady()) {
            publishStatus();
        }
        // Counted last: whoever sees the count sees the status (and its lastError) that goes with it.
        bad.increment(topic, reason);
    }

    /**
     * Publishes the status. While a session catches up (after a restart or a reset) its rule holds part of the history:
     * the scopes shown stay those last published, which go with the set still served.
     */
    private void publishStatus() {
        Status was = status;
        Map<String, ScopeStatus> scopes = caughtUp || was.scopes().isEmpty() ? scopeStatuses() : was.scopes();
        status = new Status(isReady() || startupMillis >= 0, scope, appliedVersion, startupMillis, lastError, scopes,
                contact.unreachableSinceMillis(), historyResets.sum(), lastHistoryReset);
    }

    private Map<String, ScopeStatus> scopeStatuses() {
        Map<String, ScopeStatus> scopes = new TreeMap<>();
        for (String s : rule.scopes()) {
            OptionalLong v = rule.activeVersion(s);
            Optional<SnapshotControl> c = rule.control(s);
            boolean pinned = rule.isPinned(s);
            scopes.put(s, new ScopeStatus(s, v.isPresent() ? v.getAsLong() : null, pinned,
                    pinned ? c.get().getVersion() : null, rule.controlSequence(s),
                    s.equals(scope) ? records.indexed() : -1,
                    s.equals(scope) ? records.newestRejectedAboveAccepted() : null));
        }
        return java.util.Collections.unmodifiableMap(scopes);
    }

    /** The published status with the current lastError and contact (the scopes as last published). */
    private void publishProblem() {
        Status s = status;
        status = new Status(s.ready(), s.servedScope(), s.appliedVersion(), s.startupMillis(), lastError, s.scopes(),
                contact.unreachableSinceMillis(), s.historyResets(), s.lastHistoryReset());
    }

    /** After each poll (and each topic lookup): whether the consumer is still in contact with the cluster. */
    private void checkContact() {
        outage.check(lastError, store.current().version());
    }

    /** Retained encoded records (the LRU), for tests and the status. */
    int retainedRecords() {
        return records.retained();
    }

    /** Accepted versions of the served scope whose offset is indexed (loader thread; tests read it when idle). */
    int indexedVersions() {
        return records.indexed();
    }

    private static String abbreviate(TreeSet<String> names) {
        List<String> l = new ArrayList<>(names);
        return l.size() <= 8 ? String.join(", ", l) : String.join(", ", l.subList(0, 8)) + ", … (" + l.size() + ")";
    }

    /** Stops the thread and closes its consumer. Idempotent. */
    @Override
    public void close() {
        running = false;
        stopSignal.countDown(); // ends a back-off or a wait for topics
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        reader.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
