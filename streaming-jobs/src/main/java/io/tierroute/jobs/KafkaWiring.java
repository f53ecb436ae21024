package io.tierroute.jobs;

import io.tierroute.jobs.ingest.Inbound;
import io.tierroute.jobs.ingest.RecordDecoder;
import io.tierroute.jobs.publish.DeadLetterRecordSerializer;
import io.tierroute.jobs.publish.ParamsRecordSerializer;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.DeadLetter;
import io.tierroute.schemas.avro.ParameterSnapshot;
import java.util.Properties;
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
    /** Largest snapshot the params sink sends (the forest is budgeted well under it). */
    static final int MAX_REQUEST_BYTES = 4 * 1024 * 1024;

    private KafkaWiring() {}

    /** Kafka sources of the four input topics; offsets from the checkpoint, else from the earliest. */
    public static FittingJob.Sources sources(JobSettings s) {
        return new FittingJob.Sources(source(s, Topics.TELEMETRY), source(s, Topics.DECISIONS),
            source(s, Topics.COMPLETIONS), source(s, Topics.CONTROL));
    }

    static KafkaSource<Inbound> source(JobSettings s, String topic) {
        Properties p = new Properties();
        p.setProperty("isolation.level", "read_committed");
        p.setProperty("partition.discovery.interval.ms", "60000");
        return KafkaSource.<Inbound>builder()
            .setBootstrapServers(s.bootstrapServers())
            .setTopics(topic)
            .setGroupId(s.groupId())
            .setStartingOffsets(OffsetsInitializer.earliest())
            .setDeserializer(new RecordDecoder(topic, s.jobName(), s.maxFutureSkew().toMillis()))
            .setProperties(p)
            .build();
    }

    /** Exactly-once sink to {@code tierroute.params}: readers with read_committed see each snapshot once. */
    public static KafkaSink<ParameterSnapshot> paramsSink(JobSettings s) {
        Properties p = new Properties();
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
        Properties p = new Properties();
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
     * (no function keeps a reference to an input it was handed through a chained call).
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
        return c;
    }
}
