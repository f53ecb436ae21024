package io.tierroute.jobs;

import io.tierroute.jobs.ActiveVersionScan.Where;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.RecordDecodeException;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.snapshot.ControlRecordCheck;
import io.tierroute.schemas.snapshot.ModelCarrier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@code tierroute.params} and {@code tierroute.control} from the beginning to their ends at call time into a
 * {@link PublishedParams}: the versions the keys name, and per scope the active snapshot with its quantile model. One
 * pass over both topics locates the active records ({@link ActiveVersionScan}); only those, and the records carrying
 * their forests, are then read back, so memory holds offsets, not every version's values. The consumer must be
 * read_committed, like every reader of the two topics. {@link #acceptedVersion} reads one version of one scope back the
 * same way.
 */
final class PublishedParamsReader {
    private static final Logger LOG = LoggerFactory.getLogger(PublishedParamsReader.class);
    static final Duration TIMEOUT = Duration.ofMinutes(5);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final long deadlineNanos = System.nanoTime() + TIMEOUT.toNanos();
    private final PublishedParams.Builder published = new PublishedParams.Builder();
    private final ActiveVersionScan scan = new ActiveVersionScan();
    private Map<TopicPartition, Long> end;
    private long undecodable;
    /** Keys and snapshots naming a version above {@link ControlRecordCheck#MAX_VERSION}, skipped. */
    private long pastMaxVersion;

    PublishedParamsReader(KafkaConsumer<byte[], byte[]> consumer) {
        this.consumer = consumer;
    }

    /** What the topics hold; {@link PublishedParams#NONE} when the params topic does not exist. */
    PublishedParams read() {
        List<TopicPartition> params = partitions(Topics.PARAMS);
        if (params.isEmpty()) {
            return PublishedParams.NONE;
        }
        List<TopicPartition> all = new ArrayList<>(params);
        all.addAll(partitions(Topics.CONTROL)); // none yet: no scope is pinned
        Consumer<ConsumerRecord<byte[], byte[]>> onRecord = r -> {
            if (r.topic().equals(Topics.PARAMS)) {
                onParams(r);
            } else {
                onControl(r);
            }
        };
        readToEnd(all, onRecord);
        if (scan.waitsForReadThrough()) {
            // A snapshot stamped with a control sequence whose record is not on the control topic (gone: deleted, the
            // topic recreated), or an UNPIN naming a deleted version: read on to the ends the topics have now, after
            // which the rule releases what still waits, as every selector does.
            long mark = scan.readMark();
            readOn(all, onRecord);
            scan.readThrough(mark);
        }
        if (undecodable > 0) {
            LOG.warn("{} record(s) of {} and {} could not be decoded and were skipped, as every reader skips them",
                undecodable, Topics.PARAMS, Topics.CONTROL);
        }
        if (pastMaxVersion > 0) {
            LOG.warn("{} key(s) or snapshot(s) of {} name a version above {} and were skipped: no job can publish the "
                + "version after it (a made-up or corrupt key); the version sequence and the active snapshot come from "
                + "the others", pastMaxVersion, Topics.PARAMS, ControlRecordCheck.MAX_VERSION);
        }
        scan.activeRecords().forEach((scope, where) -> {
            ParameterSnapshot active = readBack(where);
            if (active == null) {
                LOG.warn("scope {}: its active record at {} was deleted since the scan: the job starts it without an "
                    + "active snapshot", scope, where);
                return;
            }
            LOG.info("scope {}: version {} is active on {}: a start without state of the scope continues from it",
                scope, active.getVersion(), Topics.PARAMS);
            published.active(scope, Codecs.PARAMETER_SNAPSHOT.encode(withModel(scope, active)));
        });
        return published.build();
    }

    /**
     * Version {@code version} of {@code scope} as the params topic holds it to its end offsets at call time: its last
     * record, when ACCEPTED, with its quantile model as {@link #withModel} gives it; null when there is none (never
     * accepted, or deleted by a tombstone). Only that scope's records are decoded.
     */
    ParameterSnapshot acceptedVersion(String scope, long version) {
        List<TopicPartition> params = partitions(Topics.PARAMS);
        if (params.isEmpty()) {
            return null;
        }
        readToEnd(params, r -> {
            Topics.ParamsKey k = Topics.ParamsKey.parse(r.key());
            if (k == null || k.scope().equals(scope)) { // a record under another key is placed by what it holds
                onParams(r);
            }
        });
        Where where = scan.accepted(scope, version);
        ParameterSnapshot s = where == null ? null : readBack(where);
        if (s == null || s.getStatus() != SnapshotStatus.ACCEPTED || s.getVersion() != version
                || !scope.equals(s.getScope().toString())) {
            return null; // compacted or deleted since the scan
        }
        return withModel(scope, s);
    }

    /** Reads {@code parts} from their beginning to their end offsets now, each record to {@code onRecord}. */
    private void readToEnd(List<TopicPartition> parts, Consumer<ConsumerRecord<byte[], byte[]>> onRecord) {
        consumer.assign(parts);
        consumer.seekToBeginning(parts);
        end = consumer.endOffsets(parts);
        while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
            checkDeadline();
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                onRecord.accept(r);
            }
        }
    }

    /** Reads {@code parts} on from where the consumer is to their end offsets now, each record to {@code onRecord}. */
    private void readOn(List<TopicPartition> parts, Consumer<ConsumerRecord<byte[], byte[]>> onRecord) {
        end = consumer.endOffsets(parts);
        while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
            checkDeadline();
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                onRecord.accept(r);
            }
        }
    }

    private List<TopicPartition> partitions(String topic) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
        return infos == null ? List.of() : infos.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
    }

    private void onParams(ConsumerRecord<byte[], byte[]> r) {
        Topics.ParamsKey k = Topics.ParamsKey.parse(r.key());
        if (r.value() == null) {
            if (k == null) {
                return; // a tombstone that names no version: nothing to delete
            }
            if (published.tombstone(k.scope(), k.version())) {
                scan.tombstone(k.scope(), k.version());
            } else {
                pastMaxVersion++;
            }
            return;
        }
        // the version sequence counts keys (a record under another key is no version of any reader)
        if (k != null && !published.snapshot(k.scope(), k.version())) {
            pastMaxVersion++;
        }
        ParameterSnapshot s = decode(r.value());
        if (s != null && s.getVersion() > ControlRecordCheck.MAX_VERSION) {
            pastMaxVersion++; // no version the job could follow: its next would overflow
        } else if (s != null && s.getVersion() >= 1) { // readers refuse version 0 too
            scan.snapshot(s, new Where(r.partition(), r.offset()));
        }
    }

    private void onControl(ConsumerRecord<byte[], byte[]> r) {
        if (r.value() == null) {
            return; // readers ignore a control tombstone: only a PIN or UNPIN changes a scope's pin state
        }
        try {
            scan.control(Codecs.SNAPSHOT_CONTROL.decode(r.value()));
        } catch (RecordDecodeException e) {
            undecodable++;
        }
    }

    private ParameterSnapshot decode(byte[] value) {
        try {
            return Codecs.PARAMETER_SNAPSHOT.decode(value);
        } catch (RecordDecodeException e) {
            undecodable++;
            return null;
        }
    }

    /**
     * {@code active} with its quantile model, {@code quantileModelVersion} naming the record that carries it (its own
     * version for a model inline, which an older writer did not name): the fitting operator keeps the model under that
     * version and refers to it there. A carrier gone (trimmed) leaves the snapshot without a model, as a reader would
     * have none to apply; the next training brings one.
     */
    private ParameterSnapshot withModel(String scope, ParameterSnapshot active) {
        if (!ModelCarrier.refersElsewhere(active)) {
            active.setQuantileModelVersion(ModelCarrier.versionOf(active));
            return active;
        }
        long carrierVersion = active.getQuantileModelVersion();
        Where where = ModelCarrier.problem(active) == null ? scan.carrier(scope, carrierVersion) : null;
        ParameterSnapshot carrier = where == null ? null : readBack(where);
        if (carrier == null || carrier.getQuantileModel() == null) {
            LOG.warn("scope {}: active version {} names version {} as the record carrying its quantile model, which is "
                + "not on {}: the job starts from it without a model", scope, active.getVersion(), carrierVersion,
                Topics.PARAMS);
            active.setQuantileModelVersion(null);
            return active;
        }
        active.setQuantileModel(carrier.getQuantileModel());
        return active;
    }

    /** The snapshot at {@code where}, decoded; null when it is no longer there (compacted or deleted since the scan). */
    private ParameterSnapshot readBack(Where where) {
        TopicPartition tp = new TopicPartition(Topics.PARAMS, where.partition());
        consumer.assign(List.of(tp));
        consumer.seek(tp, where.offset());
        while (consumer.position(tp) < end.get(tp)) {
            checkDeadline();
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200)).records(tp)) {
                if (r.offset() < where.offset()) {
                    continue;
                }
                return r.offset() == where.offset() && r.value() != null ? decode(r.value()) : null;
            }
        }
        return null;
    }

    private void checkDeadline() {
        if (System.nanoTime() > deadlineNanos) {
            throw new IllegalStateException("could not read " + Topics.PARAMS + " and " + Topics.CONTROL
                + " to their ends within " + TIMEOUT.toMinutes() + " minutes");
        }
    }
}
