package io.tierroute.deploy.kafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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
 *
 * <p><b>Authentication and ACLs.</b> {@link #startWithSasl} starts the broker with SASL_PLAINTEXT /
 * PLAIN on both its listeners, Kafka's {@code StandardAuthorizer} ({@code allow.everyone.if.no.acl.found=false})
 * and the broker's own principal as the only super user; {@link #grant} adds ACLs for the other
 * users, and {@link #clientProperties(String, String)} gives the client settings of one user. This is
 * how the operator tools' writes (pin / unpin / rollback on {@code tierroute.control}) are refused
 * without the operator's credentials — see deploy/README.md.
 */
public final class EmbeddedKafka implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafka.class);

    /** Upper bound the broker accepts for a producer's transaction timeout (Flink's default is 1 h). */
    public static final long MAX_TRANSACTION_TIMEOUT_MS = Duration.ofHours(2).toMillis();

    private final KafkaClusterTestKit cluster;
    private final Path dataDir;
    private final Sasl sasl;

    private EmbeddedKafka(KafkaClusterTestKit cluster, Path dataDir, Sasl sasl) {
        this.cluster = cluster;
        this.dataDir = dataDir;
        this.sasl = sasl;
    }

    /**
     * SASL/PLAIN users of a secured broker.
     *
     * @param adminUser     the broker's own principal ({@code User:<adminUser>}), the only super user; the
     *                      broker authenticates to itself with it and {@link #admin()} uses it
     * @param adminPassword its password
     * @param users         the other users (name → password); they may do nothing until {@link #grant}ed
     */
    public record Sasl(String adminUser, String adminPassword, Map<String, String> users) {
        public Sasl {
            if (adminUser == null || adminUser.isBlank() || adminPassword == null || adminPassword.isEmpty()) {
                throw new IllegalArgumentException("the admin user and password must not be empty");
            }
            users = Map.copyOf(users);
            if (users.containsKey(adminUser)) {
                throw new IllegalArgumentException("user '" + adminUser + "' is the admin user already");
            }
        }

        /** The broker-side JAAS entry: the broker's own login and every user's password. */
        String serverJaasConfig() {
            StringBuilder b = new StringBuilder("org.apache.kafka.common.security.plain.PlainLoginModule required")
                    .append(" username=").append(quote(adminUser)).append(" password=").append(quote(adminPassword))
                    .append(" user_").append(adminUser).append('=').append(quote(adminPassword));
            users.forEach((u, p) -> b.append(" user_").append(u).append('=').append(quote(p)));
            return b.append(';').toString();
        }
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
        return start(brokerOverrides, null);
    }

    /**
     * Starts a broker whose listeners (client and controller) require SASL_PLAINTEXT with the PLAIN
     * mechanism, authorised by Kafka's {@code StandardAuthorizer}: {@code sasl.adminUser()} is the
     * broker's own principal and the only super user, every other user is denied everything until
     * {@link #grant}ed. {@link #admin()} and {@link #createTopic} authenticate as the admin user.
     */
    public static EmbeddedKafka startWithSasl(Sasl sasl, Map<String, String> brokerOverrides) {
        if (sasl == null) {
            throw new IllegalArgumentException("sasl must not be null");
        }
        return start(brokerOverrides, sasl);
    }

    /**
     * Formats the node's directories. Kafka's storage formatter prints its bootstrap metadata to {@code System.out},
     * where the demo prints its URLs for the operator: those lines go to this log instead, at DEBUG, or at WARN when the
     * formatting failed (with whatever another thread printed meanwhile). Synchronised: two starts must not swap the
     * stream under each other.
     */
    private static void formatQuietly(KafkaClusterTestKit cluster) throws Exception {
        synchronized (EmbeddedKafka.class) {
            PrintStream out = System.out;
            ByteArrayOutputStream said = new ByteArrayOutputStream();
            System.setOut(new PrintStream(said, true, StandardCharsets.UTF_8));
            boolean formatted = false;
            try {
                cluster.format();
                formatted = true;
            } finally {
                System.setOut(out);
                boolean failed = !formatted;
                said.toString(StandardCharsets.UTF_8).lines().forEach(line -> {
                    if (failed) {
                        log.warn("storage format (failed): {}", line);
                    } else {
                        log.debug("storage format: {}", line);
                    }
                });
            }
        }
    }

    private static EmbeddedKafka start(Map<String, String> brokerOverrides, Sasl sasl) {
        long begin = System.nanoTime();
        Path dir;
        try {
            dir = Files.createTempDirectory("tierroute-kafka-");
            TestKitNodes.Builder nodesBuilder = new TestKitNodes.Builder()
                    .setCombined(true)
                    .setNumBrokerNodes(1)
                    .setNumControllerNodes(1)
                    // Without this the test kit formats the newest, unstable metadata version.
                    .setBootstrapMetadataVersion(MetadataVersion.latestProduction())
                    .setBaseDirectory(dir);
            if (sasl != null) {
                nodesBuilder.setBrokerSecurityProtocol(SecurityProtocol.SASL_PLAINTEXT)
                        .setControllerSecurityProtocol(SecurityProtocol.SASL_PLAINTEXT);
            }
            TestKitNodes nodes = nodesBuilder.build();
            KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes);
            singleBrokerDefaults().forEach(builder::setConfigProp);
            if (sasl != null) {
                saslSettings(sasl, nodes).forEach(builder::setConfigProp);
            }
            brokerOverrides.forEach(builder::setConfigProp);
            KafkaClusterTestKit cluster = builder.setDeleteOnClose(true).build();
            formatQuietly(cluster);
            cluster.startup();
            cluster.waitForReadyBrokers();
            log.info("embedded Kafka up at {} in {} ms", cluster.bootstrapServers(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin));
            EmbeddedKafka kafka = new EmbeddedKafka(cluster, dir, sasl);
            if (sasl != null) {
                log.info("embedded Kafka requires SASL_PLAINTEXT/PLAIN; super user User:{}, users {}",
                        sasl.adminUser(), sasl.users().keySet());
            }
            return kafka;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the embedded Kafka broker", e);
        } catch (Exception e) {
            throw new IllegalStateException("could not start the embedded Kafka broker: " + e.getMessage(), e);
        }
    }

    /** Broker settings a cluster of one node needs (STACK.md). */
    public static Map<String, String> singleBrokerDefaults() {
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

    /**
     * Broker settings of a SASL broker. The test kit itself sets the SASL mechanisms (PLAIN), the
     * StandardAuthorizer and {@code allow.everyone.if.no.acl.found=false} for a SASL_PLAINTEXT
     * listener, but its own users and super user; these per-listener JAAS entries and
     * {@code super.users} replace them with {@code sasl}'s.
     */
    static Map<String, String> saslSettings(Sasl sasl, TestKitNodes nodes) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("sasl.enabled.mechanisms", "PLAIN");
        m.put("sasl.mechanism.inter.broker.protocol", "PLAIN");
        m.put("sasl.mechanism.controller.protocol", "PLAIN");
        m.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        m.put("allow.everyone.if.no.acl.found", "false");
        m.put("super.users", "User:" + sasl.adminUser());
        for (String listener : List.of(nodes.brokerListenerName().value(), nodes.controllerListenerName().value())) {
            m.put("listener.name." + listener.toLowerCase(java.util.Locale.ROOT) + ".plain.sasl.jaas.config",
                    sasl.serverJaasConfig());
        }
        return m;
    }

    /** Whether clients must authenticate ({@link #startWithSasl}). */
    public boolean secured() {
        return sasl != null;
    }

    /**
     * The client settings ({@code security.protocol}, {@code sasl.mechanism}, {@code sasl.jaas.config})
     * of {@code user} on a {@link #startWithSasl secured} broker — what a {@code --command-config}
     * file holds. Empty on a broker without authentication.
     */
    public Properties clientProperties(String user, String password) {
        Properties p = new Properties();
        if (sasl != null) {
            p.put("security.protocol", SecurityProtocol.SASL_PLAINTEXT.name);
            p.put("sasl.mechanism", "PLAIN");
            p.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username="
                    + quote(user) + " password=" + quote(password) + ";");
        }
        return p;
    }

    /**
     * Allows {@code user} the {@code operations} on {@code topic} (a literal topic name, any host),
     * through an admin client of the super user; e.g. {@code WRITE, DESCRIBE} on
     * {@code tierroute.control} for the operator, {@code READ, DESCRIBE} on both snapshot topics for
     * a read-only user. Only on a {@link #startWithSasl secured} broker.
     */
    public void grant(String user, String topic, AclOperation... operations) {
        grant(user, new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL), operations);
    }

    /**
     * Allows {@code user} the {@code operations} on every transactional id that starts with {@code prefix}; e.g.
     * {@code WRITE, DESCRIBE} on {@code tierroute-control-} for the operator, whose pins are transactions.
     */
    public void grantTransactionalIds(String user, String prefix, AclOperation... operations) {
        grant(user, new ResourcePattern(ResourceType.TRANSACTIONAL_ID, prefix, PatternType.PREFIXED), operations);
    }

    /** Allows {@code user} the {@code operations} on the consumer group {@code groupId}; e.g. {@code READ} to commit offsets. */
    public void grantGroup(String user, String groupId, AclOperation... operations) {
        grant(user, new ResourcePattern(ResourceType.GROUP, groupId, PatternType.LITERAL), operations);
    }

    private void grant(String user, ResourcePattern resource, AclOperation... operations) {
        if (sasl == null) {
            throw new IllegalStateException("this broker has no authorizer; start it with startWithSasl");
        }
        List<AclBinding> acls = new ArrayList<>();
        for (AclOperation op : operations) {
            acls.add(new AclBinding(resource, new AccessControlEntry("User:" + user, "*", op, AclPermissionType.ALLOW)));
        }
        try (Admin admin = admin()) {
            admin.createAcls(acls).all().get(30, TimeUnit.SECONDS);
            // The controller has committed them; the broker's authorizer applies them from its metadata a moment later,
            // and a client that writes at once could still be refused. The broker answers describeAcls from that
            // authorizer: once it lists them all, they are in force.
            pollUntil(() -> admin.describeAcls(new AclBindingFilter(resource.toFilter(), AccessControlEntryFilter.ANY))
                    .values().get(10, TimeUnit.SECONDS).containsAll(acls),
                    "ACLs " + acls + " were created but not in force 30 s later");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating ACLs", e);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("could not create ACLs " + acls + ": " + e.getMessage(), e);
        }
    }

    private static String quote(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
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
     * Creates a topic with replication factor 1, or does nothing if it exists already; returns once the broker lists it.
     * (The controller accepts a creation before the broker's metadata shows it: a client that looked at once, or a
     * {@link #deleteTopics} that checked what exists, could miss it, and find it a moment later.)
     *
     * @param configs topic-level settings such as {@code cleanup.policy=compact}
     */
    public void createTopic(String name, int partitions, Map<String, String> configs) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (Admin admin = admin()) {
            while (true) {
                try {
                    admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs)))
                            .all().get(30, TimeUnit.SECONDS);
                    break;
                } catch (ExecutionException e) {
                    String why = String.valueOf(e.getCause().getMessage());
                    // Just after a delete the name is "marked for deletion" for a moment: wait it out.
                    if (why.contains("marked for deletion") && System.nanoTime() < deadline) {
                        Thread.sleep(50);
                        continue;
                    }
                    if (e.getCause() instanceof TopicExistsException) {
                        break;
                    }
                    throw new IllegalStateException("could not create topic " + name + ": " + why, e);
                }
            }
            awaitListing(admin, List.of(name), true);
        } catch (ExecutionException e) {
            throw new IllegalStateException("could not list the topics after creating " + name + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + name, e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("topic " + name + " was not created within 30 s", e);
        }
    }

    /**
     * Deletes those of {@code names} that exist and waits until the broker no longer lists them, so
     * that tests can re-create them empty at once. Each is deleted by name, not only those the broker lists: the
     * controller may know a topic the broker's metadata does not show yet.
     */
    public void deleteTopics(java.util.Collection<String> names) {
        try (Admin admin = admin()) {
            for (Map.Entry<String, org.apache.kafka.common.KafkaFuture<Void>> e
                    : admin.deleteTopics(List.copyOf(names)).topicNameValues().entrySet()) {
                try {
                    e.getValue().get(30, TimeUnit.SECONDS);
                } catch (ExecutionException missing) {
                    if (!(missing.getCause() instanceof UnknownTopicOrPartitionException)) {
                        throw missing;
                    }
                }
            }
            awaitListing(admin, names, false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while deleting topics " + names, e);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("could not delete topics " + names + ": " + e.getMessage(), e);
        }
    }

    /** Waits until the broker lists every one of {@code names} ({@code listed}) or none of them. */
    private static void awaitListing(Admin admin, java.util.Collection<String> names, boolean listed)
            throws InterruptedException, ExecutionException, java.util.concurrent.TimeoutException {
        pollUntil(() -> {
            java.util.Set<String> shown = admin.listTopics().names().get(10, TimeUnit.SECONDS);
            return listed ? shown.containsAll(names) : names.stream().noneMatch(shown::contains);
        }, "topics " + names + (listed ? " were not listed 30 s after their creation"
                : " were still listed 30 s after their deletion"));
    }

    /** A broker-side check that may read false for a moment after the controller accepted a change. */
    private interface BrokerCheck {
        boolean holds() throws InterruptedException, ExecutionException, java.util.concurrent.TimeoutException;
    }

    /** Polls {@code check} every 50 ms until it holds; IllegalStateException({@code failure}) after 30 s. */
    private static void pollUntil(BrokerCheck check, String failure)
            throws InterruptedException, ExecutionException, java.util.concurrent.TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!check.holds()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(failure);
            }
            Thread.sleep(50);
        }
    }

    /**
     * Stops the broker (the controller keeps running), as a broker that crashed or was taken down: its port stops
     * accepting connections and clients see an outage. {@link #startBroker} brings it back on the same port and data.
     * For fault tests.
     */
    public void stopBroker() {
        cluster.brokers().values().forEach(b -> b.shutdown());
        log.info("embedded Kafka broker at {} stopped", bootstrapServers());
    }

    /** Starts the broker {@link #stopBroker} stopped, on the same port and data; returns once it accepts clients. */
    public void startBroker() {
        long begin = System.nanoTime();
        try {
            for (var b : cluster.brokers().values()) {
                b.startup();
            }
            cluster.waitForReadyBrokers();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while restarting the embedded Kafka broker", e);
        } catch (Exception e) {
            throw new IllegalStateException("could not restart the embedded Kafka broker: " + e.getMessage(), e);
        }
        log.info("embedded Kafka broker at {} up again in {} ms", bootstrapServers(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin));
    }

    /** An admin client on this broker (as the super user on a secured one); the caller closes it. */
    public Admin admin() {
        Properties props = sasl == null ? new Properties() : clientProperties(sasl.adminUser(), sasl.adminPassword());
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
