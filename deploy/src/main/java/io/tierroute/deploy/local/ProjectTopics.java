package io.tierroute.deploy.local;

import io.tierroute.deploy.kafka.KafkaClientErrors;
import io.tierroute.schemas.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Creates the project's topics with their policies ({@link Topics#specs()}: compacted params and
 * control, params taking records up to {@link Topics#PARAMS_MAX_MESSAGE_BYTES}, retention for the rest) on a broker;
 * topics that exist already are left as they are (deploy/README.md says how to raise an older params topic's limit).
 */
public final class ProjectTopics {

    private ProjectTopics() {}

    /** The topic list could not be read; the message says why (no answer, authentication, authorisation). */
    public static final class Unlisted extends IllegalStateException {
        Unlisted(String message, Throwable cause) {
            super(message, cause);
        }

        /**
         * The client refused its own settings before asking anything (a host that does not resolve, a bad value): not
         * the broker's answer, so advice about its authentication would mislead.
         */
        public boolean settingsRefused() {
            return refusedSettings(getCause());
        }
    }

    /** Whether a Kafka client refused its own settings ({@code ConfigException} anywhere in {@code cause}'s chain). */
    public static boolean refusedSettings(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof org.apache.kafka.common.config.ConfigException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Which of {@code names} the broker at {@code bootstrap} lacks, asked with an Admin client (10 s at most) configured
     * with {@code clientProperties} (security.protocol, sasl.*, ssl.* …).
     *
     * @throws Unlisted when the broker does not list its topics: no answer in time (a broker that wants SASL or TLS
     *                  from a plain client never answers), a failed authentication, or no right to DESCRIBE one of
     *                  {@code names} (the listing leaves such a topic out as if it did not exist)
     */
    public static List<String> missing(String bootstrap, Map<String, String> clientProperties, List<String> names) {
        Map<String, Object> config = new HashMap<>(clientProperties);
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000"); // at most the API timeout, or the client refuses
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        try (Admin admin = Admin.create(config)) {
            Set<String> present = admin.listTopics().names().get(10, TimeUnit.SECONDS);
            List<String> absent = names.stream().filter(t -> !present.contains(t)).toList();
            return absent.isEmpty() ? absent : reallyMissing(admin, bootstrap, absent);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unlisted("interrupted while listing the topics of " + bootstrap, e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new Unlisted("Kafka at " + bootstrap + " did not list its topics within 10 s", e);
        } catch (ExecutionException e) {
            throw new Unlisted(listingFailure(bootstrap, e.getCause()), e.getCause());
        } catch (KafkaException e) {
            throw new Unlisted(listingFailure(bootstrap, e), e);
        }
    }

    /**
     * A topic the client may not DESCRIBE is left out of the listing as if it did not exist: asked by name, the broker
     * tells the two apart.
     */
    private static List<String> reallyMissing(Admin admin, String bootstrap, List<String> absent)
            throws InterruptedException, ExecutionException, java.util.concurrent.TimeoutException {
        List<String> missing = new ArrayList<>();
        List<String> hidden = new ArrayList<>();
        var described = admin.describeTopics(absent).topicNameValues();
        for (String topic : absent) {
            try {
                described.get(topic).get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                    missing.add(topic);
                } else if (e.getCause() instanceof TopicAuthorizationException) {
                    hidden.add(topic);
                } else {
                    throw e;
                }
            }
        }
        if (!hidden.isEmpty()) {
            throw new Unlisted("Kafka at " + bootstrap + " did not authorise the client to describe " + String.join(", ",
                    hidden) + " (the principal needs DESCRIBE on every topic it uses)", null);
        }
        return missing;
    }

    private static String listingFailure(String bootstrap, Throwable cause) {
        if (cause instanceof AuthenticationException) {
            return "Kafka at " + bootstrap + " did not authenticate the client: " + cause.getMessage();
        }
        if (cause instanceof AuthorizationException) {
            return "Kafka at " + bootstrap + " did not authorise the client to list topics: " + cause.getMessage();
        }
        if (refusedSettings(cause)) {
            return "the Kafka client refused its settings for " + bootstrap + ": " + KafkaClientErrors.describe(cause);
        }
        if (cause instanceof org.apache.kafka.common.errors.TimeoutException) {
            return "Kafka at " + bootstrap + " did not list its topics within 10 s (" + cause.getMessage() + ")";
        }
        return "Kafka at " + bootstrap + " did not list its topics: " + KafkaClientErrors.describe(cause);
    }

    /**
     * For each existing topic of {@link Topics#specs()} whose {@code max.message.bytes} is below its spec's (a topic
     * created by an earlier release, which {@link #create} leaves as it is): a line saying so, with the command that
     * raises it. Empty when every limit is at least the spec's, or when the broker does not say.
     */
    public static List<String> recordLimitsBelowSpec(String bootstrap) {
        List<String> lines = new ArrayList<>();
        try (Admin admin = admin(bootstrap)) {
            for (Topics.Spec s : Topics.specs()) {
                String wanted = s.configs().get(MAX_MESSAGE_BYTES);
                if (wanted == null) {
                    continue;
                }
                var topic = new org.apache.kafka.common.config.ConfigResource(
                        org.apache.kafka.common.config.ConfigResource.Type.TOPIC, s.name());
                var entry = admin.describeConfigs(List.of(topic)).all().get(30, TimeUnit.SECONDS).get(topic)
                        .get(MAX_MESSAGE_BYTES);
                if (entry != null && entry.value() != null && Long.parseLong(entry.value()) < Long.parseLong(wanted)) {
                    lines.add(s.name() + " takes records of at most " + entry.value() + " bytes (created before it took "
                            + wanted + "): a snapshot carrying a large forest would be refused; raise it with "
                            + "kafka-configs.sh --bootstrap-server " + bootstrap + " --alter --entity-type topics "
                            + "--entity-name " + s.name() + " --add-config " + MAX_MESSAGE_BYTES + "=" + wanted);
                }
            }
        } catch (ExecutionException | java.util.concurrent.TimeoutException | RuntimeException e) {
            return lines; // a broker that does not say: nothing to warn of
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return lines;
    }

    private static final String MAX_MESSAGE_BYTES = "max.message.bytes";

    /** An Admin client for {@code bootstrap} whose calls give up after 30 s. */
    private static Admin admin(String bootstrap) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000"));
    }

    /** Creates the missing topics of {@link Topics#specs()} with {@code replicationFactor}; returns the names it created. */
    public static List<String> create(String bootstrap, short replicationFactor) {
        List<String> created = new ArrayList<>();
        try (Admin admin = admin(bootstrap)) {
            for (Topics.Spec s : Topics.specs()) {
                try {
                    admin.createTopics(List.of(new NewTopic(s.name(), s.partitions(), replicationFactor).configs(s.configs())))
                            .all().get(30, TimeUnit.SECONDS);
                    created.add(s.name());
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("could not create topic " + s.name() + " on " + bootstrap + ": "
                                + e.getCause().getMessage(), e);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("the broker at " + bootstrap + " did not create the topics within 30 s", e);
        }
        return created;
    }
}
