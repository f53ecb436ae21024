package io.tierroute.deploy.kafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A real single-node Kafka broker (KRaft, combined broker + controller) running in this JVM on
 * loopback, for tests and the demo. It is Kafka's own {@code KafkaClusterTestKit}, configured with
 * the settings a one-broker cluster needs (replication factors of 1, no initial rebalance delay, a
 * transaction timeout ceiling above the Flink sink's). Close it to stop the broker and delete its
 * data.
 */
public final class EmbeddedKafka implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafka.class);

    /** Upper bound the broker accepts for a producer's transaction timeout (Flink's default is 1 h). */
    public static final long MAX_TRANSACTION_TIMEOUT_MS = Duration.ofHours(2).toMillis();

    private final KafkaClusterTestKit cluster;
    private final Path dataDir;

    private EmbeddedKafka(KafkaClusterTestKit cluster, Path dataDir) {
        this.cluster = cluster;
        this.dataDir = dataDir;
    }

    /** Starts a broker with default settings; returns once it accepts clients. */
    public static EmbeddedKafka start() {
        return start(Map.of());
    }

    /**
     * Starts a broker; {@code brokerOverrides} are extra broker settings (e.g. the log cleaner's
     * back-off for tests that watch compaction). Returns once the broker accepts clients.
     */
    public static EmbeddedKafka start(Map<String, String> brokerOverrides) {
        long begin = System.nanoTime();
        Path dir;
        try {
            dir = Files.createTempDirectory("tierroute-kafka-");
            TestKitNodes nodes = new TestKitNodes.Builder()
                    .setCombined(true)
                    .setNumBrokerNodes(1)
                    .setNumControllerNodes(1)
                    // Without this the test kit formats the newest, unstable metadata version.
                    .setBootstrapMetadataVersion(MetadataVersion.latestProduction())
                    .setBaseDirectory(dir)
                    .build();
            KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes);
            singleBrokerDefaults().forEach(builder::setConfigProp);
            brokerOverrides.forEach(builder::setConfigProp);
            KafkaClusterTestKit cluster = builder.setDeleteOnClose(true).build();
            cluster.format();
            cluster.startup();
            cluster.waitForReadyBrokers();
            log.info("embedded Kafka up at {} in {} ms", cluster.bootstrapServers(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin));
            return new EmbeddedKafka(cluster, dir);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the embedded Kafka broker", e);
        } catch (Exception e) {
            throw new IllegalStateException("could not start the embedded Kafka broker: " + e.getMessage(), e);
        }
    }

    /** Broker settings a cluster of one node needs (STACK.md). */
    static Map<String, String> singleBrokerDefaults() {
        return Map.of(
                "offsets.topic.replication.factor", "1",
                "offsets.topic.num.partitions", "4",
                "transaction.state.log.replication.factor", "1",
                "transaction.state.log.min.isr", "1",
                "transaction.state.log.num.partitions", "4",
                "min.insync.replicas", "1",
                "group.initial.rebalance.delay.ms", "0",
                "transaction.max.timeout.ms", Long.toString(MAX_TRANSACTION_TIMEOUT_MS),
                "auto.create.topics.enable", "false");
    }

    /** {@code host:port} for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    /** Where the broker keeps its logs (deleted on {@link #close()}). */
    public Path dataDir() {
        return dataDir;
    }

    /**
     * Creates a topic with replication factor 1, or does nothing if it exists already.
     *
     * @param configs topic-level settings such as {@code cleanup.policy=compact}
     */
    public void createTopic(String name, int partitions, Map<String, String> configs) {
        try (Admin admin = admin()) {
            admin.createTopics(java.util.List.of(new NewTopic(name, partitions, (short) 1).configs(configs)))
                    .all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("could not create topic " + name + ": " + e.getCause().getMessage(), e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + name, e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("topic " + name + " was not created within 30 s", e);
        }
    }

    /** An admin client on this broker; the caller closes it. */
    public Admin admin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return Admin.create(props);
    }

    @Override
    public void close() {
        try {
            cluster.close();
        } catch (Exception e) {
            log.warn("embedded Kafka did not close cleanly: {}", e.toString());
        }
    }
}
