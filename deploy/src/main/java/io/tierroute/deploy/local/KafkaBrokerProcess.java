package io.tierroute.deploy.local;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Uuid;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A Kafka broker in its own JVM (KRaft, one node as broker and controller) on fixed loopback ports,
 * keeping its data in {@code dir/data}. {@link #start} formats the data directory the first time
 * ({@code StorageTool format --standalone}), then runs {@code kafka.Kafka}; a later start on the same
 * directory and ports reuses the data (topics, offsets, transactions), as a restarted broker does.
 */
public final class KafkaBrokerProcess implements AutoCloseable {

    /** Where and how. {@code dir} holds server.properties, data/ and kafka.log. */
    public record Settings(Path dir, int clientPort, int controllerPort, List<Path> classpath, String marker,
                           Map<String, String> overrides) {
        public Settings {
            if (clientPort == controllerPort) {
                throw new IllegalArgumentException("the Kafka client and controller ports must differ, both are " + clientPort);
            }
            overrides = Map.copyOf(overrides);
        }
    }

    private static final String JVM_HEAP = "-Xmx512m";

    private final Settings settings;
    private ChildJvm jvm;
    private Duration lastStartTime;

    public KafkaBrokerProcess(Settings settings) {
        this.settings = settings;
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + settings.clientPort();
    }

    /** Formats the data directory if new, starts the broker and waits until an Admin client describes it. */
    public KafkaBrokerProcess start(Duration timeout) {
        if (jvm != null && jvm.isAlive()) {
            throw new IllegalStateException("the Kafka broker is running already (pid " + jvm.pid() + ")");
        }
        LoopbackPorts.requireFree(settings.clientPort(), "the Kafka client port");
        LoopbackPorts.requireFree(settings.controllerPort(), "the Kafka controller port");
        long begin = System.nanoTime();
        Path props = writeProperties();
        if (!Files.exists(dataDir().resolve("meta.properties"))) {
            ChildJvm.runToCompletion(spec("kafka-storage-format", "kafka.tools.StorageTool",
                    List.of("format", "--standalone", "-t", Uuid.randomUuid().toString(), "-c", props.toString()),
                    settings.dir().resolve("kafka-format.log")), Duration.ofSeconds(60));
        }
        jvm = ChildJvm.start(spec("kafka-broker", "kafka.Kafka", List.of(props.toString()),
                settings.dir().resolve("kafka.log")));
        jvm.awaitReady("an Admin client describes the cluster", timeout, this::describes);
        lastStartTime = Duration.ofNanos(System.nanoTime() - begin);
        return this;
    }

    /** Whether an Admin client gets the cluster's description within a second or two. */
    public boolean describes() {
        return describes(bootstrapServers());
    }

    /**
     * Whether a broker at {@code bootstrap} answers an Admin client's describeCluster within about 2 s. Nothing
     * listening at any bootstrap address answers false at once: an Admin client would only retry and log a connection
     * warning every 200 ms until its timeout ('cluster status' of a stopped broker printed a dozen).
     */
    public static boolean describes(String bootstrap) {
        return whyNotDescribed(bootstrap, Duration.ofSeconds(2)) == null;
    }

    /**
     * Null when an Admin client describes the cluster at {@code bootstrap} within {@code budget}, else why not (for
     * an operator: nothing listening, a timeout, the client's error).
     */
    public static String whyNotDescribed(String bootstrap, Duration budget) {
        return whyNotDescribed(bootstrap, new Properties(), budget);
    }

    /** As {@link #whyNotDescribed(String, Duration)}, the Admin client with {@code client}'s settings (SASL, TLS). */
    public static String whyNotDescribed(String bootstrap, Properties client, Duration budget) {
        if (!BootstrapAddresses.anyListening(bootstrap)) {
            return "nothing listens at " + bootstrap;
        }
        long ms = budget.toMillis();
        try (Admin admin = Admin.create(adminWithin(bootstrap, client, ms))) {
            return admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) ms)).nodes()
                    .get(ms + 1000, TimeUnit.MILLISECONDS).isEmpty() ? "the cluster has no broker" : null;
        } catch (TimeoutException e) {
            return "no answer within " + ms + " ms";
        } catch (ExecutionException e) {
            return e.getCause() == null ? e.toString() : e.getCause().getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } catch (RuntimeException e) {
            return e.getMessage();
        }
    }

    /**
     * The broker's {@code transaction.max.timeout.ms} (the longest transaction a producer may ask for: above it, its
     * {@code initTransactions} is refused), asked of one broker at {@code bootstrap} by an Admin client with
     * {@code client}'s settings (SASL, TLS; none for a plain connection); empty when it does not say.
     */
    public static java.util.OptionalLong maxTransactionTimeoutMs(String bootstrap, Properties client, Duration budget) {
        long ms = budget.toMillis();
        try (Admin admin = Admin.create(adminWithin(bootstrap, client, ms))) {
            var nodes = admin.describeCluster().nodes().get(ms, TimeUnit.MILLISECONDS);
            if (nodes.isEmpty()) {
                return java.util.OptionalLong.empty();
            }
            var broker = new org.apache.kafka.common.config.ConfigResource(
                    org.apache.kafka.common.config.ConfigResource.Type.BROKER, nodes.iterator().next().idString());
            var entry = admin.describeConfigs(java.util.List.of(broker)).all().get(ms, TimeUnit.MILLISECONDS)
                    .get(broker).get("transaction.max.timeout.ms");
            return entry == null || entry.value() == null ? java.util.OptionalLong.empty()
                    : java.util.OptionalLong.of(Long.parseLong(entry.value()));
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            return java.util.OptionalLong.empty(); // not allowed to describe, or no answer: the job will say
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return java.util.OptionalLong.empty();
        }
    }

    /**
     * An Admin client's settings for {@code bootstrap}, over {@code client}'s (security settings), that give up within
     * {@code ms} (a request within ¾ of it).
     */
    private static Properties adminWithin(String bootstrap, Properties client, long ms) {
        Properties p = new Properties();
        p.putAll(client);
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(Math.max(500, ms * 3 / 4)));
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(ms));
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
        return p;
    }

    /** The broker process, or null before {@link #start}. */
    public ChildJvm jvm() {
        return jvm;
    }

    /** How long the last {@link #start} took, format included. */
    public Duration lastStartTime() {
        return lastStartTime;
    }

    /** A graceful stop (SIGTERM: the broker closes its logs cleanly), SIGKILL after 30 s. */
    public void stop() {
        if (jvm != null) {
            jvm.stop(Duration.ofSeconds(30));
        }
    }

    @Override
    public void close() {
        stop();
    }

    public Path dataDir() {
        return settings.dir().resolve("data");
    }

    /** The broker's settings (STACK.md: KRaft combined mode, single-node defaults of the embedded broker). */
    Map<String, String> serverProperties() {
        String c = "127.0.0.1:" + settings.controllerPort();
        Map<String, String> m = new LinkedHashMap<>();
        m.put("process.roles", "broker,controller");
        m.put("node.id", "1");
        m.put("controller.quorum.bootstrap.servers", c);
        m.put("listeners", "PLAINTEXT://" + bootstrapServers() + ",CONTROLLER://" + c);
        m.put("advertised.listeners", "PLAINTEXT://" + bootstrapServers());
        m.put("controller.listener.names", "CONTROLLER");
        m.put("inter.broker.listener.name", "PLAINTEXT");
        m.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        m.put("log.dirs", dataDir().toAbsolutePath().toString());
        m.putAll(EmbeddedKafka.singleBrokerDefaults());
        m.putAll(settings.overrides());
        return m;
    }

    private Path writeProperties() {
        Path file = settings.dir().resolve("server.properties");
        try {
            Files.createDirectories(settings.dir());
            Properties p = new Properties();
            p.putAll(serverProperties());
            try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                p.store(w, "written by tierroute's KafkaBrokerProcess");
            }
            return file;
        } catch (IOException e) {
            throw new IllegalStateException("could not write " + file + ": " + ClusterDirLock.reason(e), e);
        }
    }

    private ChildJvm.Spec spec(String name, String mainClass, List<String> args, Path log) {
        return new ChildJvm.Spec(name, settings.classpath(), List.of(JVM_HEAP, "-XX:+UseSerialGC",
                AvroTrust.FLAG), mainClass, args, log, settings.dir(), settings.marker());
    }
}
