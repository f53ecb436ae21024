package io.tierroute.jobs;

import io.tierroute.jobs.ingest.Inbound;
import io.tierroute.jobs.ingest.RecordDecoder;
import io.tierroute.jobs.publish.DeadLetterRecordSerializer;
import io.tierroute.jobs.publish.ParamsRecordSerializer;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.DeadLetter;
import io.tierroute.schemas.avro.ParameterSnapshot;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.CheckpointingMode;

/** The real sources, sinks and execution configuration of {@link FittingJob}, from {@link JobSettings}. */
public final class KafkaWiring {
    /** Largest snapshot the params sink sends (the forest is budgeted well under it, ρ trimmed to it: RecordBudget). */
    public static final int MAX_REQUEST_BYTES = 4 * 1024 * 1024;

    private KafkaWiring() {}

    /** Kafka sources of the four input topics; offsets from the checkpoint, else from the earliest. */
    public static FittingJob.Sources sources(JobSettings s) {
        return new FittingJob.Sources(source(s, Topics.TELEMETRY), source(s, Topics.DECISIONS),
            source(s, Topics.COMPLETIONS), source(s, Topics.CONTROL));
    }

    /**
     * Settings the job gives its clients itself: a properties file that set them would break what the job relies on
     * (exactly-once reads and writes, the consumer group the README's ACLs name, the records' encoding).
     */
    static final Set<String> OWN_SETTINGS = Set.of("bootstrap.servers", "group.id",
            "isolation.level", "enable.auto.commit", "transactional.id", "key.serializer", "value.serializer",
            "key.deserializer", "value.deserializer");

    /**
     * The client settings of {@link JobSettings#kafkaProperties()} (empty when none): a secured broker's
     * {@code security.protocol}, {@code sasl.*}, {@code ssl.*}, given to every client of the job.
     *
     * @throws IllegalArgumentException naming the file when it cannot be read or sets one of {@link #OWN_SETTINGS}
     */
    public static Properties clientProperties(JobSettings s) {
        Properties p = new Properties();
        if (s.kafkaProperties() == null) {
            return p;
        }
        Path file = Path.of(s.kafkaProperties());
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(in);
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("--kafka-properties " + file + " cannot be read where the job's main "
                    + "runs (the JobManager): " + e, e);
        }
        List<String> own = p.stringPropertyNames().stream().filter(OWN_SETTINGS::contains).sorted().toList();
        if (!own.isEmpty()) {
            throw new IllegalArgumentException("--kafka-properties " + file + " sets " + String.join(", ", own)
                    + ", which the job sets itself (--bootstrap-servers, --group-id, exactly-once reads and writes); "
                    + "give it client security settings only (security.protocol, sasl.*, ssl.*)");
        }
        return p;
    }

    static KafkaSource<Inbound> source(JobSettings s, String topic) {
        Properties p = clientProperties(s);
        p.setProperty("isolation.level", "read_committed");
        p.setProperty("partition.discovery.interval.ms", "60000");
        return KafkaSource.<Inbound>builder()
            .setBootstrapServers(s.bootstrapServers())
            .setTopics(topic)
            .setGroupId(s.groupId())
            .setStartingOffsets(OffsetsInitializer.earliest())
            .setDeserializer(new RecordDecoder(topic, s.jobName(), s.maxFutureSkew().toMillis(), s.scopes()))
            .setProperties(p)
            .build();
    }

    /**
     * What {@code tierroute.params} holds, with {@code tierroute.control} (read_committed, from the beginning to the end
     * offsets at call time; {@link PublishedParamsReader}): per scope the newest version and the versions not deleted
     * by a tombstone (parsed from the keys, {@link Topics#paramsKey}), and the active snapshot as
     * {@link io.tierroute.schemas.snapshot.ActivationRule} makes it over both topics, with its quantile model (read back
     * from the record carrying it). Read once at submission and handed to the fitting operator, so that a start without
     * state (new group id, no savepoint, lost checkpoints) continues each scope's sequence rather than publishing
     * version 1 again, and gates its first candidate against the active snapshot, carrying from it what the fit cannot
     * determine yet, rather than against nothing with the defaults (which the activation rule would then have made
     * active everywhere); and so that a forest carrier named in restored state but trimmed since is published again.
     * A scope restored from a checkpoint or savepoint keeps its own active version. Undecodable records are skipped (a
     * WARN counts them); an active snapshot whose forest carrier is gone is taken without a model. Empty when the
     * params topic does not exist yet. Carries the consumer settings too: the fitting operator reads with them a pinned
     * version its history no longer keeps ({@link PublishedParams#readAccepted}).
     */
    public static PublishedParams publishedParams(JobSettings s) {
        Properties p = paramsReaderProperties(s);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            return new PublishedParamsReader(c).read().withReaderSettings(p);
        }
    }

    /** A read_committed consumer of {@code tierroute.params} and {@code tierroute.control} that seeks (no group). */
    private static Properties paramsReaderProperties(JobSettings s) {
        Properties p = clientProperties(s);
        p.setProperty("bootstrap.servers", s.bootstrapServers());
        p.setProperty("isolation.level", "read_committed");
        p.setProperty("enable.auto.commit", "false");
        p.setProperty("allow.auto.create.topics", "false");
        p.setProperty("max.partition.fetch.bytes", Integer.toString(MAX_REQUEST_BYTES * 2));
        // Each read-back of an active record seeks: a fetch left waiting at the end (default 500 ms) delayed every one.
        p.setProperty("fetch.max.wait.ms", "20");
        p.setProperty("key.deserializer", ByteArrayDeserializer.class.getName());
        p.setProperty("value.deserializer", ByteArrayDeserializer.class.getName());
        return p;
    }

    /**
     * Exactly-once sink to {@code tierroute.params}: readers with read_committed see each snapshot once. Compressed:
     * the compacted topic keeps every version, one a publish interval, and each forest once (~0.5 MB at 50 trees, in
     * the first record that uses it); gzip (in the JDK, no native codec in the job jar) stores them in ~0.4 of their
     * size.
     */
    public static KafkaSink<ParameterSnapshot> paramsSink(JobSettings s) {
        Properties p = clientProperties(s);
        p.setProperty("compression.type", "gzip");
        p.setProperty("transaction.timeout.ms", Long.toString(s.transactionTimeout().toMillis()));
        p.setProperty("max.request.size", Integer.toString(MAX_REQUEST_BYTES));
        return KafkaSink.<ParameterSnapshot>builder()
            .setBootstrapServers(s.bootstrapServers())
            .setRecordSerializer(new ParamsRecordSerializer(Topics.PARAMS))
            .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
            .setTransactionalIdPrefix(s.transactionalIdPrefix())
            .setKafkaProducerConfig(p)
            .build();
    }

    /** At-least-once sink to {@code tierroute.dead-letter} (visible without waiting for a checkpoint). */
    public static KafkaSink<DeadLetter> deadLetterSink(JobSettings s) {
        Properties p = clientProperties(s);
        p.setProperty("max.request.size", Integer.toString(MAX_REQUEST_BYTES));
        return KafkaSink.<DeadLetter>builder()
            .setBootstrapServers(s.bootstrapServers())
            .setRecordSerializer(new DeadLetterRecordSerializer(Topics.DEAD_LETTER))
            .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
            .setKafkaProducerConfig(p)
            .build();
    }

    /**
     * Execution settings: exactly-once checkpoints at the configured interval, retained on
     * cancellation (a cancelled job can be restored), the chosen state backend and object reuse
     * (no function keeps a reference to an input it was handed through a chained call). The job's
     * {@link WriterIdentity} rides along as its global job parameters, for {@code tierroute submit}'s guard.
     */
    public static Configuration configuration(JobSettings s) {
        Configuration c = new Configuration();
        c.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, s.checkpointInterval());
        c.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
        c.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
            ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        c.set(StateBackendOptions.STATE_BACKEND, s.stateBackend());
        if (s.checkpointDir() != null) {
            c.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, s.checkpointDir());
        }
        c.set(CoreOptions.DEFAULT_PARALLELISM, s.parallelism());
        c.set(PipelineOptions.OBJECT_REUSE, true);
        // Every type the job ships or keeps has a serializer of ours, Avro's or Flink's own: a new field that would
        // fall back to Kryo (which may fall back to Java serialization) fails the job's build, not a restore.
        c.set(PipelineOptions.GENERIC_TYPES, false);
        c.set(PipelineOptions.GLOBAL_JOB_PARAMETERS, WriterIdentity.of(s));
        return c;
    }
}
