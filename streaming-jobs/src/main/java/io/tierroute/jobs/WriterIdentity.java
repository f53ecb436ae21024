package io.tierroute.jobs;

import io.tierroute.schemas.Topics;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What makes a running fitting job a writer of the parameter topic, published as the job's Flink global
 * job parameters ({@link KafkaWiring#configuration}) so that Flink's REST API shows it
 * ({@code GET /jobs/<id>/config}, {@code execution-config.user-config}) and {@code tierroute submit} can
 * refuse a second writer of the same topic on the same Kafka, whatever the jobs are called.
 *
 * <p>Anyone who reaches the Flink REST port reads these: only the named non-secret fields below go in,
 * never a whole settings object, a client property file or anything SASL/TLS (passwords, tokens).
 */
public final class WriterIdentity {
    /** Present (value {@link #FITTING_JOB}) on every fitting job: what tells it from other jobs on a shared cluster. */
    public static final String ROLE = "tierroute.role";
    public static final String FITTING_JOB = "fitting-job";
    public static final String PARAMS_TOPIC = "tierroute.params-topic";
    public static final String BOOTSTRAP_SERVERS = "tierroute.bootstrap-servers";
    public static final String JOB_NAME = "tierroute.job-name";
    public static final String GROUP_ID = "tierroute.group-id";
    public static final String TRANSACTIONAL_ID_PREFIX = "tierroute.transactional-id-prefix";
    /** Where the job's Kafka client settings are read ({@code --kafka-properties}), when set: the path, not the file. */
    public static final String KAFKA_PROPERTIES = "tierroute.kafka-properties";

    private WriterIdentity() {}

    /** The published fields of a job run with {@code s}; the topic is the one {@link KafkaWiring#paramsSink} writes. */
    public static Map<String, String> of(JobSettings s) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(ROLE, FITTING_JOB);
        m.put(PARAMS_TOPIC, Topics.PARAMS);
        m.put(BOOTSTRAP_SERVERS, s.bootstrapServers());
        m.put(JOB_NAME, s.jobName());
        m.put(GROUP_ID, s.groupId());
        m.put(TRANSACTIONAL_ID_PREFIX, s.transactionalIdPrefix());
        if (s.kafkaProperties() != null) { // a resumed job needs it again (ResumeCommand); its contents stay in the file
            m.put(KAFKA_PROPERTIES, s.kafkaProperties());
        }
        return m;
    }
}
