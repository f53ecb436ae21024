package io.tierroute.cli;

import io.tierroute.dashboards.control.ControlFence;
import io.tierroute.dashboards.history.SnapshotHistory;
import io.tierroute.deploy.kafka.KafkaClientErrors;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.RecordDecodeException;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.snapshot.ActivationRule;
import io.tierroute.schemas.snapshot.ModelCarrier;
import io.tierroute.schemas.snapshot.ReadThrough;
import io.tierroute.schemas.snapshot.SnapshotRetention;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The snapshot CLI's Kafka access: a one-shot read of {@code tierroute.params} and
 * {@code tierroute.control} from the beginning to their current end into the dashboards'
 * {@link SnapshotHistory} (so the CLI, the dashboard, the job and every selector apply the same
 * {@link io.tierroute.schemas.snapshot.ActivationRule}), and one control write. Every client gets
 * the {@code --command-config} properties (security.protocol, sasl.*, ssl.* ...), as Kafka's own
 * tools do. Broker problems become {@link Failure}s with a message for the operator, never a stack
 * trace.
 */
final class SnapshotsKafka {

    private static final List<String> TOPICS = List.of(Topics.PARAMS, Topics.CONTROL);
    private static final Pattern JAAS_USER = Pattern.compile("username\\s*=\\s*\"([^\"]*)\"");

    /** A refusal or broker problem, with what the operator reads. */
    static class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Failure(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * A control record was committed, or may have been (the broker did not confirm the commit), but what became active
     * could not be read back: the write stands or may, so the operator must not repeat it blindly (a second rollback
     * would roll back again).
     */
    static final class Unconfirmed extends Failure {
        private static final long serialVersionUID = 1L;

        Unconfirmed(String message) {
            super(message);
        }
    }

    /**
     * What one read found: the history (its window of the newest versions per scope, and the versions the command
     * named however old), every version on the params topic, the full snapshots (ρ, forest) of the named versions, and
     * how many records could not be decoded.
     */
    record Read(SnapshotHistory history, VersionsOnTopic onTopic, Map<Long, ParameterSnapshot> kept, long badRecords) {}

    private final String bootstrap;
    private final Properties clientConfig;
    private final Duration timeout;
    private final int versionWindow;

    SnapshotsKafka(String bootstrap, Properties clientConfig, Duration timeout) {
        this(bootstrap, clientConfig, timeout, SnapshotHistory.DEFAULT_MAX_VERSIONS);
    }

    /** {@code versionWindow}: how many of the newest versions per scope a read's history keeps besides those named. */
    SnapshotsKafka(String bootstrap, Properties clientConfig, Duration timeout, int versionWindow) {
        this.bootstrap = bootstrap;
        this.clientConfig = clientConfig;
        this.timeout = timeout;
        this.versionWindow = versionWindow;
    }

    /**
     * The control record's actor: the name given, and on a SASL connection the principal the broker
     * authenticated ({@code oncall (User:operator)}), which the write proves — the name alone is only what
     * the caller says. Unchanged when it names that principal already, or without SASL credentials.
     */
    String recordedActor(String actor) {
        String principal = principal();
        if (!principal.startsWith("User:") || principal.contains(" ")) {
            return actor;
        }
        String user = principal.substring("User:".length());
        return actor.equals(user) || actor.equals(principal) ? actor : actor + " (" + principal + ")";
    }

    /** Who the broker sees: {@code User:<name>} from the SASL settings, or the anonymous principal. */
    String principal() {
        String protocol = clientConfig.getProperty(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "PLAINTEXT");
        if (!protocol.toUpperCase(java.util.Locale.ROOT).startsWith("SASL")) {
            return "User:ANONYMOUS (no credentials)";
        }
        Matcher m = JAAS_USER.matcher(clientConfig.getProperty("sasl.jaas.config", ""));
        return m.find() ? "User:" + m.group(1) : "the principal of --command-config";
    }

    private Properties base(String clientId) {
        Properties p = new Properties();
        p.putAll(clientConfig);
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
        return p;
    }

    /**
     * Reads both topics from the beginning to the committed end offsets they have now; the versions {@code named} of
     * {@code scope} are kept in the history (and in full) however far below its window they are.
     */
    Read read(String scope, Set<Long> named) {
        return read(scope, named, false);
    }

    /**
     * {@link #read(String, Set)}; {@code pastOpenTransactions}: to the end the topics have now, uncommitted records
     * included, waiting for an open transaction (the fitting job's) to end. A writer behind the fence reads so: a
     * trim's tombstones committed after the job's open transaction began lie past the committed end until it ends.
     */
    Read read(String scope, Set<Long> named, boolean pastOpenTransactions) {
        SnapshotHistory history = new SnapshotHistory(versionWindow, SnapshotHistory.DEFAULT_FULL_SNAPSHOTS,
                (sc, v) -> sc.equals(scope) && named.contains(v));
        VersionsOnTopic onTopic = new VersionsOnTopic();
        Map<Long, ParameterSnapshot> kept = new HashMap<>();
        long[] bad = {0};
        readBoth(pastOpenTransactions, history, r -> {
            if (r.topic().equals(Topics.CONTROL)) {
                bad[0] += onControl(history, r) ? 0 : 1;
            } else if (r.value() == null) {
                Topics.ParamsKey k = Topics.ParamsKey.parse(r.key());
                if (k != null) { // else a tombstone that names no scope#version: nothing to forget
                    history.onTombstone(k.scope(), k.version());
                    onTopic.deleted(k.scope(), k.version());
                    if (k.scope().equals(scope)) {
                        kept.remove(k.version());
                    }
                }
            } else {
                ParameterSnapshot s = onParams(history, r);
                if (s == null) {
                    bad[0]++;
                } else if (s.getVersion() >= 1) { // every reader ignores the others: nothing they could name
                    onTopic.published(s.getScope(), s.getVersion());
                    if (s.getScope().equals(scope) && named.contains(s.getVersion())) {
                        kept.put(s.getVersion(), s);
                    }
                }
            }
        });
        history.markReady();
        return new Read(history, onTopic, kept, bad[0]);
    }

    /**
     * Every version of every scope on the params topic (not only the newest {@link SnapshotHistory} keeps) with what
     * retention needs of it, and the {@link ActivationRule} both topics give; what could not be decoded is counted.
     */
    Versions readVersions() {
        Versions all = new Versions(new TreeMap<>(), new ActivationRule(), new HashMap<>());
        readBoth(false, ReadThrough.of(all.rule()), r -> { // behind the fence missing newer records only keeps more
            if (r.topic().equals(Topics.PARAMS) && !all.onParams(r)) {
                Topics.ParamsKey k = Topics.ParamsKey.parse(r.key());
                all.undecodable().merge(k == null ? "" : k.scope(), 1L, Long::sum);
            } else if (r.topic().equals(Topics.CONTROL) && r.value() != null) {
                try {
                    all.rule().onControl(Codecs.SNAPSHOT_CONTROL.decode(r.value()));
                } catch (RecordDecodeException e) {
                    // no reader applies it either (ActivationRule is fed decoded records only)
                }
            }
        });
        return all;
    }

    /**
     * What {@link #readVersions} found: per scope, version → its retention facts; the rule; per scope (by key) the
     * params records that could not be decoded.
     */
    record Versions(Map<String, NavigableMap<Long, SnapshotRetention.Version>> scopes, ActivationRule rule,
                    Map<String, Long> undecodable) {
        long undecodable(String scope) {
            return undecodable.getOrDefault(scope, 0L);
        }

        private boolean onParams(ConsumerRecord<byte[], byte[]> r) {
            if (r.value() == null) {
                Topics.ParamsKey k = Topics.ParamsKey.parse(r.key());
                if (k != null) {
                    rule.onSnapshot(k.scope(), k.version(), SnapshotStatus.REJECTED, 0);
                    NavigableMap<Long, SnapshotRetention.Version> vs = scopes.get(k.scope());
                    if (vs != null) {
                        vs.remove(k.version());
                    }
                }
                return k != null;
            }
            try {
                ParameterSnapshot s = Codecs.PARAMETER_SNAPSHOT.decode(r.value());
                if (s.getVersion() < 1) {
                    return true; // every reader ignores it: nothing it could name
                }
                rule.onSnapshot(s);
                scopes.computeIfAbsent(s.getScope(), x -> new TreeMap<>()).put(s.getVersion(),
                        new SnapshotRetention.Version(s.getVersion(), s.getStatus(), ModelCarrier.versionOf(s)));
                return true;
            } catch (RecordDecodeException e) {
                return false;
            }
        }
    }

    /**
     * Reads both topics, committed records only, from the beginning to the committed end offsets they have now, or
     * with {@code pastOpenTransactions} to their end offsets including records of open transactions (see
     * {@link #read(String, long, boolean)}). When the rule of {@code readers} then still holds something back for a
     * record it has not read (a snapshot stamped with a control sequence whose record is gone, an UNPIN naming a
     * deleted version: {@link io.tierroute.schemas.snapshot.ActivationRule}), one more round reads both topics on to the
     * end offsets they have after that, and tells the rule: what still waits then is released, as every selector
     * releases it, instead of being shown without an active version.
     */
    private void readBoth(boolean pastOpenTransactions, ReadThrough.Subject readers,
                          java.util.function.Consumer<ConsumerRecord<byte[], byte[]>> onRecord) {
        Properties p = base("tierroute-snapshots-cli");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(16 * 1024 * 1024));
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(timeout.toMillis()));
        long deadline = System.nanoTime() + timeout.toNanos();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            for (String t : TOPICS) {
                List<PartitionInfo> infos = c.partitionsFor(t, timeout);
                if (infos == null || infos.isEmpty()) {
                    throw new Failure("topic " + t + " does not exist on " + bootstrap + " (is this the tierroute "
                            + "cluster? the demo and deploy/ create it)");
                }
                infos.forEach(i -> parts.add(new TopicPartition(i.topic(), i.partition())));
            }
            c.assign(parts);
            c.seekToBeginning(parts);
            readTo(c, pastOpenTransactions ? uncommittedEnds(parts) : c.endOffsets(parts, timeout), deadline,
                    pastOpenTransactions, onRecord);
            if (readers.waitsForReadThrough()) {
                long mark = readers.readMark(); // every record read so far was published before the ends fetched now
                readTo(c, pastOpenTransactions ? uncommittedEnds(parts) : c.endOffsets(parts, timeout), deadline,
                        pastOpenTransactions, onRecord);
                readers.readThrough(mark);
            }
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            throw unreachable(e);
        } catch (AuthenticationException e) {
            throw new Failure("refused: the broker at " + bootstrap + " did not authenticate " + principal() + ": "
                    + e.getMessage() + "; pass working credentials with --command-config FILE");
        } catch (AuthorizationException e) {
            throw new Failure("refused: the broker did not authorise " + principal() + " to read " + TOPICS + " ("
                    + e.getMessage() + "); it needs READ and DESCRIBE on both topics");
        } catch (KafkaException e) {
            throw new Failure("could not read " + TOPICS + " from " + bootstrap + ": " + KafkaClientErrors.describe(e));
        }
    }

    /** Polls until the consumer's position reaches {@code ends} on every partition, each record to {@code onRecord}. */
    private void readTo(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, Long> ends, long deadline,
                        boolean pastOpenTransactions, java.util.function.Consumer<ConsumerRecord<byte[], byte[]>> onRecord) {
        Map<TopicPartition, Long> left = new HashMap<>(ends);
        left.entrySet().removeIf(e -> c.position(e.getKey()) >= e.getValue());
        while (!left.isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new Failure("could not read " + TOPICS + " to their end within " + timeout.toSeconds()
                        + " s (still behind on " + left.keySet() + (pastOpenTransactions ? ", where an open "
                        + "transaction of the fitting job may hold the committed end back" : "")
                        + "); try a longer --timeout");
            }
            for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                onRecord.accept(r);
            }
            left.entrySet().removeIf(e -> c.position(e.getKey()) >= e.getValue());
        }
    }

    /** The partitions' end offsets as a read_uncommitted consumer sees them: past every open transaction. */
    private Map<TopicPartition, Long> uncommittedEnds(List<TopicPartition> parts) {
        Properties p = base("tierroute-snapshots-cli");
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(timeout.toMillis()));
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted"); // whatever --command-config says
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            return c.endOffsets(parts, timeout);
        }
    }

    private Failure unreachable(Exception e) {
        return new Failure("broker unreachable: no answer from " + bootstrap + " within " + timeout.toSeconds()
                + " s (" + e.getMessage() + "). Is Kafka running there? " + (clientConfig.isEmpty()
                ? "If it requires authentication (SASL/TLS), pass its client settings with --command-config FILE"
                : "Check the client settings of --command-config (security.protocol, the listener's port)"));
    }

    /** The snapshot {@code r} holds, applied to the history if its version is 1 or above; null when undecodable. */
    private static ParameterSnapshot onParams(SnapshotHistory history, ConsumerRecord<byte[], byte[]> r) {
        try {
            ParameterSnapshot s = Codecs.PARAMETER_SNAPSHOT.decode(r.value());
            if (s.getVersion() >= 1) {
                history.onSnapshot(s, r.offset());
            }
            return s;
        } catch (RecordDecodeException e) {
            return null;
        }
    }

    private static boolean onControl(SnapshotHistory history, ConsumerRecord<byte[], byte[]> r) {
        if (r.value() == null) {
            return false;
        }
        try {
            history.onControl(Codecs.SNAPSHOT_CONTROL.decode(r.value()));
            return true;
        } catch (RecordDecodeException e) {
            return false;
        }
    }

    /**
     * Fences every other writer of {@code scope} (the dashboard, another CLI; {@link ControlFence}): read the
     * history after this, decide, and {@link Fence#commit} one record. A refusal by the broker is a {@link Failure}.
     */
    Fence fence(String scope) {
        String what = "write to scope '" + scope + "'";
        try {
            return new Fence(ControlFence.open(bootstrap, clientConfig, scope, timeout, "tierroute-snapshots-cli-control"));
        } catch (KafkaException e) {
            throw writeFailure(e, what, Topics.CONTROL);
        }
    }

    /** An open {@link ControlFence}; nothing is written until {@link #commit}. */
    final class Fence implements AutoCloseable {
        private final ControlFence fence;

        private Fence(ControlFence fence) {
            this.fence = fence;
        }

        /**
         * The scope's last committed sequence, read to the control topic's end (past any open transaction of another
         * scope, which holds back where a committed read stops): a history read after this holds it.
         */
        long lastSequence(String scope) {
            try {
                return ControlFence.lastSequence(bootstrap, clientConfig, scope, timeout);
            } catch (KafkaException e) {
                throw writeFailure(e, "write to scope '" + scope + "'", Topics.CONTROL);
            }
        }

        /** Commits {@code control}; a lost race or a refusal is a {@link Failure}, nothing written. */
        void commit(SnapshotControl control) {
            String what = control.getAction() + " of scope '" + control.getScope() + "'";
            try {
                fence.commit(control);
            } catch (ControlFence.Fenced e) {
                throw new Failure("another writer (the dashboard or another 'snapshots' command) changed scope '"
                        + control.getScope() + "' while this " + what + " was written. Nothing was written; check "
                        + "'tierroute snapshots list' and retry");
            } catch (ControlFence.Unconfirmed e) { // it may still land: exit 3, not 1 (refused), so none repeats it
                throw new Unconfirmed("the " + what + ": " + e.getMessage() + "; check 'tierroute snapshots list' "
                        + "before retrying: it may have been written");
            } catch (KafkaException e) {
                throw writeFailure(e, what, Topics.CONTROL);
            }
        }

        /** Where the params topic ends for a writer behind this fence ({@link ControlFence.ParamsEnds}). */
        ControlFence.ParamsEnds paramsEnds(String scope) {
            try {
                return ControlFence.paramsEnds(bootstrap, clientConfig, scope, timeout);
            } catch (KafkaException e) {
                throw writeFailure(e, "write to scope '" + scope + "'", Topics.CONTROL);
            }
        }

        /**
         * Deletes {@code versions} of {@code scope} from the params topic in one transaction behind this fence; a lost
         * race or a refusal is a {@link Failure}.
         */
        void delete(String scope, List<Long> versions) {
            String what = "deletion of " + versions.size() + " versions of scope '" + scope + "'";
            try {
                fence.commitDeletions(versions);
            } catch (ControlFence.Fenced e) {
                throw new Failure("another writer (the dashboard or a 'snapshots' command) began a write to scope '"
                        + scope + "' while the " + what + " was written, or the batch outlived the fence's "
                        + ControlFence.TRANSACTION_TIMEOUT.toSeconds() + " s transaction timeout (then lower --batch); "
                        + "run the trim again (it decides afresh from the history; deleting a version twice is "
                        + "harmless)");
            } catch (ControlFence.Unconfirmed e) {
                throw new Failure("the " + what + ": " + e.getMessage() + "; run the trim again to finish it");
            } catch (KafkaException e) {
                throw writeFailure(e, what, Topics.PARAMS);
            }
        }

        @Override
        public void close() {
            fence.close();
        }
    }

    private Failure writeFailure(Throwable thrown, String what, String topic) {
        // The idempotent producer can meet the refusal in its own InitProducerId before send() runs; send() then
        // throws "Cannot execute transactional method because we are in an error state" with the refusal as its
        // cause (a CI run saw it), so the refusal is looked for down the cause chain.
        Throwable e = refusalIn(thrown);
        if (e instanceof AuthorizationException) {
            return new Failure("refused: the broker did not authorise " + principal() + " to write " + topic
                    + " (" + e.getMessage() + "; a writer needs WRITE on the topic and WRITE, DESCRIBE on the "
                    + "transactional id '" + ControlFence.TRANSACTIONAL_ID_PREFIX + "<scope>'); pass the operator's "
                    + "credentials with --command-config FILE. Nothing was written.");
        }
        if (e instanceof AuthenticationException) {
            return new Failure("refused: the broker at " + bootstrap + " did not authenticate " + principal() + " ("
                    + e.getMessage() + "); pass the operator's credentials with --command-config FILE. "
                    + "Nothing was written.");
        }
        if (e instanceof ControlFence.UnfinishedRead) { // Kafka answered: a read before the write took too long
            return new Failure("could not write the " + what + " to " + topic + ": Kafka answered, but the check before "
                    + "writing " + e.getMessage() + ". Nothing was written; retry shortly.");
        }
        if (e instanceof org.apache.kafka.common.errors.TimeoutException) {
            return unreachable((Exception) e);
        }
        return new Failure("could not write the " + what + " to " + topic + ": " + KafkaClientErrors.describe(e));
    }

    /** The first authorisation, authentication or timeout error in {@code e}'s cause chain, else {@code e}. */
    static Throwable refusalIn(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof AuthorizationException || t instanceof AuthenticationException
                    || t instanceof org.apache.kafka.common.errors.TimeoutException) {
                return t;
            }
        }
        return e;
    }
}
