package io.tierroute.selector.kafka;

import io.tierroute.schemas.RecordDecodeException;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.UnknownSchemaException;
import io.tierroute.schemas.snapshot.ActivationRule;
import io.tierroute.schemas.snapshot.ReadThrough;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.logging.LogLimiter;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.threads.PartStop;
import io.tierroute.selector.threads.Uninterrupted;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Follows {@code tierroute.params} and {@code tierroute.control} and keeps the selector's
 * {@link ParameterStore} on the version {@link ActivationRule} makes active in the served scope.
 *
 * <p><b>Thread.</b> One thread ({@code tierroute-params-loader}) owns a consumer assigned to every
 * partition of both topics (no consumer group, no committed offsets), the rule and the retained
 * records; nothing else touches them (the helpers named below that do run on that thread). Other
 * threads read an immutable {@link Status} published through a volatile field ({@link LoaderStatus}),
 * and counters.
 *
 * <p><b>Start-up.</b> The thread seeks both topics to the beginning and reads their end offsets
 * ({@link CatchUpOffsets}). Until its position reaches those offsets on every partition it only records
 * snapshots and control records in the rule; then it activates the rule's version once and reports
 * ready ({@link #awaitReady}). So a start-up applies the final state once, never every historic
 * version. Missing topics are retried every second; an empty topic is caught up at once.
 *
 * <p><b>Failures.</b> An exception from the consumer (a broker that went away during the catch-up, a
 * timeout on end offsets) does not end the loader: it logs, counts
 * ({@code tierroute_params_loader_restarts_total}), waits (1 s, doubling to 30 s) and starts a new
 * session with a fresh consumer that re-reads both topics from the beginning into a fresh rule. The
 * applied set stays in the store meanwhile; the new session swaps only if its rule's version differs. A record batch
 * that poll() refuses (its CRC does not match: {@link UnreadableRecord}) is skipped instead, and counted as a corrupt
 * record: a new session would re-read it and stall on it for ever. An {@link Error} (out of memory, …) stops the loader
 * for good ({@link #stopped()}): the applied set is then served unchanged, {@code /healthz} answers 503 and
 * {@link #kafkaConnected()} is false.
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
 * <p><b>Topics that grow.</b> Partitions added to either topic after the catch-up are read from their beginning, logged
 * and counted ({@link LoaderPartitions}).
 *
 * <p><b>Records.</b> Each record read goes to {@link RecordIntake}, which decodes what the rule needs, checks it and
 * feeds the rule; a bad one (undecodable, an unknown writer schema, values the selector cannot use) is logged and
 * counted by {@link BadRecordReport}, and the active set stays.
 *
 * <p><b>Follow.</b> After each poll (once caught up) {@link ActiveVersionSwap} asks the rule for the served scope's
 * version and, when it differs from the applied one, decodes that snapshot in full (its model by reference resolved),
 * converts it and swaps it in; a version that cannot be used is given up until it is published again, and a re-read
 * that failed for a transient reason is retried with back-off.
 *
 * <p><b>Records read ahead of what they depend on.</b> The rule holds back a snapshot stamped with a control sequence
 * the loader has not read yet (the two partitions are fetched independently: the PIN the job applied before it
 * published the snapshot may still be in a stalled control fetch), and an UNPIN whose named version is not read yet;
 * the applied set stays meanwhile. While something is held back the loader reads both topics through
 * ({@link ReadThrough}: end offsets fetched after it was read, the positions brought up to them) and tells the rule,
 * which releases what depends on a record that is not on the topics (a control topic recreated or whose records were
 * deleted while the snapshots kept their stamps): so no scope is held back for ever. When catch-up ends while something
 * is held back (the job published during the catch-up), the loader finishes a round that started after it did before it
 * applies and reports ready ({@link ReadThrough#caughtUp}), so it never starts on a version released a moment later.
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
    private final SnapshotRecordReader reader;                             // versions no longer retained
    private final ServedScopeRecords records;                              // served scope: offsets, LRU, carriers
    private final LoaderStatus status;                                     // what other threads read
    private final BadRecordReport bad;                                     // bad records: logged, counted
    private final ActiveVersionSwap swap;                                  // the rule's active version → the store
    private final RecordIntake intake;                                     // each record read → the rule
    private final HistoryIdentity identity;                                // the cluster and topic ids read from
    private final LoaderPartitions partitions;                             // of both topics, and those added
    private final ReadThrough<TopicPartition> readThrough = new ReadThrough<>(); // loader thread; reset per session
    private final Thread thread;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final CountDownLatch stopSignal = new CountDownLatch(1);      // counted down by close(): ends back-off waits
    private volatile boolean running = true;
    private volatile KafkaConsumer<byte[], byte[]> consumer;

    private boolean caughtUp;          // loader thread: this session has read up to the end offsets at its start
    private String historyGone;        // loader thread: why this session's history is no longer on the topics, or null
    private long startNanos;
    private long sessionStartNanos;

    private final LongAdder restarts = new LongAdder();
    private final PartStop stop = new PartStop("params loader");
    private final BrokerContact contact;   // checked by the loader thread; read by status() through Status
    private final OutageReport outage;     // loader thread
    private final RhoAging rhoAging;       // loader thread
    private static final long PAUSE_SLICE_MS = 500;

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
        this.store = store;
        this.converter = converter;
        this.contact = new BrokerContact(settings.bootstrapServers(), BrokerContact.thresholdFor(settings.properties()));
        this.reader = new SnapshotRecordReader(settings, scope, () -> running, contact);
        this.records = new ServedScopeRecords(indexedVersions,
                new RetainedRecords(settings.params().retainedSnapshots(), MAX_RETAINED_BYTES), reader);
        this.status = new LoaderStatus(scope, store.current().version(), records, contact);
        this.outage = new OutageReport(contact, scope, status::publishProblem);
        LogLimiter badLog = new LogLimiter(20, 1000); // one limit for every problem line of the loader thread
        this.bad = new BadRecordReport(scope, store, status, badLog, this::isReady, this::publishStatus);
        this.rhoAging = new RhoAging(scope, settings.params().rhoMaxAge(), System::currentTimeMillis);
        this.swap = new ActiveVersionSwap(scope, store, converter, rhoAging, records,
                new ActiveSnapshotReader(scope, records, () -> running), status, bad, badLog, () -> running,
                this::publishStatus);
        this.intake = new RecordIntake(scope, records, swap, status, bad, badLog, this::isReady);
        this.identity = new HistoryIdentity(() -> KafkaClients.admin(settings, "params-identity"),
                settings.bootstrapServers(), List.of(Topics.PARAMS, Topics.CONTROL), identityPeriod);
        this.partitions = new LoaderPartitions(settings.bootstrapServers(), identityPeriod, () -> running,
                this::checkContact, this::pause);
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
        return status.current();
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

    public long paramsRecordsRead() { return intake.paramsRecords(); }
    public long controlRecordsRead() { return intake.controlRecords(); }
    public long swaps() { return swap.swaps(); }
    public long rereads() { return reader.rereads(); }
    /** Re-reads of an active version that failed for a transient reason (retried with back-off). */
    public long rereadFailures() { return swap.rereadFailures(); }

    /** Versions applied with the output model in use because the evaluator refused their quantile forest. */
    public long forestsRefused() { return swap.forestsRefused(); }
    /** Versions older than the offset index looked up by scanning the params topic. */
    public long scans() { return reader.scans(); }
    /** Sessions restarted after a consumer error. */
    public long restarts() { return restarts.sum(); }
    public long staleControlRecords() { return intake.staleControlRecords(); }
    /** Times the history read was found gone and both topics were re-read from the beginning. */
    public long historyResets() { return status.historyResets(); }
    /** Partitions added to the params or control topic while the loader followed them. */
    public long partitionsAdded() { return partitions.added(); }
    /** Answers of the cluster to the identity check so far (tests wait for one past a broker restart). */
    long historyIdentityAnswers() { return identity.answers(); }
    public long unknownWorkers() { return converter.unknownWorkers(); }

    /** Decode + convert + swap time of the last swap, ns, or -1. */
    public long lastSwapNanos() { return swap.lastSwapNanos(); }

    /** Where the loader reads (for messages). */
    public String bootstrapServers() { return settings.bootstrapServers(); }

    /** Whether the loader is in contact with the Kafka cluster (as its {@link #status()} says); false once stopped. */
    public boolean kafkaConnected() { return stop.why() == null && status().kafkaUnreachableSinceMs() == null; }

    /** Why an Error stopped the loader for good (the applied set is frozen), or null while it runs. */
    public String stopped() { return stop.why(); }

    /** Time since the loader's last contact with the Kafka cluster while it has none (as its status says), else 0. */
    public long kafkaUnreachableMillis() {
        Long since = status().kafkaUnreachableSinceMs();
        return since == null ? 0 : Math.max(0, System.currentTimeMillis() - since);
    }

    // ---- the loader thread ----

    private void run() {
        try {
            SessionLoop.run(() -> running, this::session, (e, wait) -> {
                restarts.increment();
                String error = "loader restarting in " + wait + " ms after: " + SessionLoop.describe(e);
                status.setLastError(error);
                log.error("params loader: {}; keeping parameter version {} of scope '{}' meanwhile", error,
                        store.current().version(), scope, SessionLoop.traceWorthLogging(e));
                publishStatus();
            }, this::stopped, this::pause);
        } finally {
            identity.close();
        }
    }

    /** An Error ended the loop: recorded for good, and said in the status. */
    private void stopped(Throwable error) {
        running = false;
        stop.record(error, (caughtUp ? "following " : "catching up with ") + Topics.PARAMS + " and " + Topics.CONTROL);
        try {
            status.setLastError("loader stopped for good by " + stop.why() + "; keeping parameter version "
                    + store.current().version() + " until the selector restarts");
            publishStatus();
        } catch (Throwable ignored) {
            // out of memory again: stopped() still says it, and health and metrics read that
        }
    }

    /** Waits {@code millis} or until close(); never interrupts a Kafka client. */
    private void pause(long millis) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        try {
            // In slices, the served ρ ageing between them: a restart's back-off lasts up to 30 s.
            for (long left = millis; left > 0 && running; left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())) {
                rhoAging.ageServed(store);
                if (stopSignal.await(Math.min(left, PAUSE_SLICE_MS), TimeUnit.MILLISECONDS)) {
                    return;
                }
            }
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
            List<TopicPartition> parts = partitions.discover(c);
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
        swap.newSession();
        readThrough.reset();
        caughtUp = false;
        historyGone = null;
    }

    /** Reads up to the end offsets at the start, activates once, then follows; returns when closed or history is gone. */
    private void readAndFollow(KafkaConsumer<byte[], byte[]> c, List<TopicPartition> parts) {
        CatchUpOffsets catchUp = CatchUpOffsets.read(c, parts, scope);
        while (running) {
            ConsumerRecords<byte[], byte[]> records;
            try {
                records = c.poll(Duration.ofMillis(caughtUp ? 500 : 100));
            } catch (InvalidOffsetException e) {
                throw e; // the history is gone: the session says so
            } catch (KafkaException e) {
                UnreadableRecord u = UnreadableRecord.of(c, e);
                if (u == null) {
                    throw e;
                }
                u.skip(c); // a new session would re-read it from the beginning and stall there again
                bad.reportAt(u.partition().topic(), BadReason.CORRUPT, u.where(), "cannot be read (" + u.why()
                        + "); skipped");
                continue;
            }
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
                intake.onRecord(r, rule, caughtUp);
            }
            ReadThrough.Subject subject = ReadThrough.of(rule);
            boolean released = readThrough.afterPoll(subject, () -> endOffsets(c),
                    tp -> KafkaClients.positionNow(c, tp));
            if (!caughtUp) {
                // Not while a snapshot read during catch-up is held back: a round of reading through releases it first
                // if its control record is gone (the job published during start-up), so ready is never on a stale one.
                if (catchUp.reached(c) && readThrough.caughtUp(subject)) {
                    onCaughtUp();
                }
            } else if (!records.isEmpty() || swap.retryDue() || released) {
                swap.activateIfChanged(rule);
            }
            if (caughtUp && !records.isEmpty()) {
                publishStatus();
            }
            if (caughtUp) {
                partitions.readAdded(c, parts);
            }
        }
    }

    /**
     * The end offsets of every partition the consumer reads now, for a round of {@link ReadThrough}; null when the
     * broker does not answer in time (the round is tried again later; the loop goes on polling meanwhile).
     */
    private static Map<TopicPartition, Long> endOffsets(KafkaConsumer<byte[], byte[]> c) {
        Set<TopicPartition> parts = c.assignment();
        try {
            return c.endOffsets(parts, READ_THROUGH_TIMEOUT);
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            return null;
        }
    }

    private static final Duration READ_THROUGH_TIMEOUT = Duration.ofSeconds(2);

    /** The session has read the topics as they were at its start: activate the rule's version once, report ready. */
    private void onCaughtUp() {
        caughtUp = true;
        boolean first = !isReady();
        boolean afterReset = swap.fromGoneHistory();
        if (first) {
            status.startedUp(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
        }
        // Ready on the version it will serve: through every unusable one on top (each pass a re-read), not after the
        // first few, so requireOnStart never passes a replica still on the defaults.
        do {
            swap.activateIfChanged(rule);
        } while (swap.giveUpsPending() && running);
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - (first ? startNanos : sessionStartNanos));
        log.info("params loader {} in {} ms: {} snapshot and {} control records read; scope '{}' at version {}{}",
                first ? "ready" : "caught up again", tookMillis, intake.paramsRecords(), intake.controlRecords(), scope,
                swap.appliedVersion(), rule.isPinned(scope) ? " (pinned)" : "");
        if (afterReset && rule.activeVersion(scope).isEmpty()) {
            log.warn("params loader: {} and {} as they are now hold no usable version of scope '{}'; serving version {} "
                    + "of the history that is gone until one is published", Topics.PARAMS, Topics.CONTROL, scope,
                    store.current().version());
        }
        status.warnIfScopeUnknown(first || afterReset, rule, swap.appliedVersion());
        publishStatus();
        ready.countDown();
    }

    /**
     * The history this session read is gone: one WARN, counted and shown in the status; the next session (at once)
     * re-reads both topics from the beginning, and the applied set, from the old history, is served until it has.
     */
    private void startAgainFromScratch(String why) {
        swap.historyGone();
        String reset = BrokerContact.isoTime(System.currentTimeMillis()) + ": " + why;
        log.warn("params loader: {}; re-reading both topics from the beginning (serving parameter version {} of scope "
                + "'{}' until then)", why, store.current().version(), scope);
        status.historyReset(reset); // counted before the status, which carries the count
        publishStatus();
    }

    /** Publishes the status ({@link LoaderStatus#publish}) with what the loader thread knows now. */
    private void publishStatus() {
        status.publish(isReady(), caughtUp, swap.appliedVersion(), rule);
    }

    /**
     * After each poll (and each topic lookup): whether the consumer is still in contact with the cluster; and the served
     * ρ ages while no snapshot replaces it, caught up or not (a session that restarts, or waits for the topics, serves
     * the set it had).
     */
    private void checkContact() {
        outage.check(status.lastError(), store.current().version());
        rhoAging.ageServed(store);
    }

    /** Retained encoded records (the LRU), for tests and the status. */
    int retainedRecords() {
        return records.retained();
    }

    /** Accepted versions of the served scope whose offset is indexed (loader thread; tests read it when idle). */
    int indexedVersions() {
        return records.indexed();
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
        Uninterrupted.join(thread, 10_000); // an interrupted caller still waits for the thread (its interrupt kept)
    }
}
