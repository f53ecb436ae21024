package io.tierroute.selector.kafka;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.Topics;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.ingest.KvEventPipeline;
import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.protocol.WorkerRegistry;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A selector started before its topics exist, on a broker that creates topics on demand (its default): its lookups
 * must not create them. Auto-created, {@code tierroute.params} and {@code tierroute.control} would get the broker's
 * defaults (cleanup.policy=delete, 1 MB records) instead of {@code tierroute topics create}'s, and retention would then
 * delete a PIN; and the command's create would then fail with "already exists".
 */
class NoTopicAutoCreationTest {

    @Test
    void theSelectorsConsumersWaitForMissingTopicsWithoutCreatingThem() throws Exception {
        try (EmbeddedKafka k = EmbeddedKafka.start(Map.of("auto.create.topics.enable", "true"))) {
            KafkaSettings s = KafkaSettings.defaults(k.bootstrapServers());
            try (KvEventPipeline pipeline = new KvEventPipeline(RunPrefixIndex.builder().workers(1).maxBlocks(100).build(), 16);
                 ParameterLoader loader = new ParameterLoader(s, KafkaFixture.loaderStore(), KafkaFixture.loaderConverter())
                         .start();
                 KvEventConsumer kv = new KvEventConsumer(s, new WorkerRegistry(List.of("w0")), pipeline).start()) {
                assertThat(loader.awaitReady(Duration.ofSeconds(4))).as("no topics: not caught up").isFalse();
                assertThat(kv.awaitAssigned(Duration.ofMillis(500))).as("no topic: not assigned").isFalse();
                try (Admin admin = k.admin()) {
                    Set<String> topics = admin.listTopics().names().get(30, TimeUnit.SECONDS);
                    assertThat(topics).doesNotContain(Topics.PARAMS, Topics.CONTROL, Topics.KV_EVENTS);
                }
            }
        }
    }
}
