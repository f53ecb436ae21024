package io.tierroute.deploy.local;

import io.tierroute.schemas.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.TopicExistsException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Creates the project's topics with their policies ({@link Topics#specs()}: compacted params and
 * control, retention for the rest) on a broker; topics that exist already are left as they are.
 */
public final class ProjectTopics {

    private ProjectTopics() {}

    /**
     * Which of {@code names} the broker at {@code bootstrap} lacks (an Admin client, 10 s at most); none when the broker
     * cannot be asked: whoever then uses the topics reports what it cannot reach.
     */
    public static List<String> missing(String bootstrap, List<String> names) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000", // at most the API timeout, or the client refuses
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000"))) {
            Set<String> present = admin.listTopics().names().get(10, TimeUnit.SECONDS);
            return names.stream().filter(t -> !present.contains(t)).toList();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        } catch (ExecutionException | java.util.concurrent.TimeoutException | KafkaException e) {
            return List.of();
        }
    }

    /** Creates the missing topics of {@link Topics#specs()} with {@code replicationFactor}; returns the names it created. */
    public static List<String> create(String bootstrap, short replicationFactor) {
        List<String> created = new ArrayList<>();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000"))) {
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
