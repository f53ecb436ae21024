package io.tierroute.selector.kafka;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.deploy.local.LoopbackPorts;
import io.tierroute.schemas.Topics;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.WorkerRegistry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static io.tierroute.selector.kafka.KafkaFixture.await;
import static io.tierroute.selector.kafka.KafkaFixture.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Kafka outage as the parameter loader shows it: poll() returns nothing either way, so the loader's status, its
 * metrics and its lastError say whether the broker is gone ({@link BrokerContact}), and it recovers without a new
 * session. Real brokers: nothing listening at all, and a broker of its own that is stopped and started again.
 */
class KafkaOutageLoaderTest {

    private static final List<String> WORKERS = List.of("w0", "w1");

    private static ParameterLoader loader(KafkaSettings settings, ParameterStore store) {
        return new ParameterLoader(settings, store,
                new SnapshotConverter(new WorkerRegistry(WORKERS), CostParameters.DEFAULTS, 0.5)).start();
    }

    private static String scrape(ParameterLoader l, String bootstrap) throws Exception {
        PrometheusRegistry r = new PrometheusRegistry();
        new KafkaPartsReport(bootstrap, "default", null, l, null, null).registerMetrics(r);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, r.scrape());
        return out.toString(StandardCharsets.UTF_8);
    }

    private static double gauge(String metrics, String name) {
        return metrics.lines().filter(line -> line.startsWith(name + " ")).mapToDouble(
                line -> Double.parseDouble(line.substring(name.length() + 1))).findFirst()
                .orElseThrow(() -> new AssertionError(name + " not in " + metrics));
    }

    @Test
    void theServedRhoAgesOutWhileKafkaCannotBeReached() throws Exception {
        String bootstrap = "127.0.0.1:" + LoopbackPorts.free();
        KafkaSettings settings = KafkaSettings.defaults(bootstrap).withParams(new KafkaSettings.Params(true, 8,
                Duration.ofSeconds(30), false, Duration.ofSeconds(2)));
        long measured = System.currentTimeMillis();
        ParameterStore store = new ParameterStore(ParameterSet.builder(2).version(4)
                .rho(1, io.tierroute.selector.protocol.Tier.CPU, 0.95, Double.NaN, measured).build());
        int cpu = io.tierroute.selector.protocol.Tier.CPU.ordinal();
        try (ParameterLoader l = loader(settings, store)) {
            await(Duration.ofSeconds(15), () -> store.current().rho(1, cpu) == 0,
                    "the served rho to age out with no broker to read snapshots from");
            assertThat(System.currentTimeMillis() - measured).isGreaterThan(2_000);
            assertThat(l.status().ready()).as("never caught up").isFalse();
            assertThat(store.current().version()).isEqualTo(4);
            assertThat(store.current().rhoAgedOutLinks()).isEqualTo(1);
        }
    }

    @Test
    void aLoaderWhereNothingListensSaysSoWithinSeconds() throws Exception {
        // Not a port from the OS's ephemeral range, where servers that bind port 0 get theirs.
        String bootstrap = "127.0.0.1:" + LoopbackPorts.free();
        long begin = System.currentTimeMillis();
        try (ParameterLoader l = loader(KafkaSettings.defaults(bootstrap), new ParameterStore(ParameterSet.defaults(2)))) {
            long started = System.currentTimeMillis(); // the loader started between begin and now
            await(Duration.ofSeconds(12), () -> l.status().kafkaUnreachableSinceMs() != null,
                    "the loader's status to say Kafka is unreachable; status " + l.status());
            ParameterLoader.Status st = l.status();
            assertThat(st.ready()).isFalse();
            assertThat(st.kafkaUnreachableSinceMs()).as("no contact ever: since the loader's start")
                    .isBetween(begin - 1000, started + 1000);
            assertThat(st.lastError()).startsWith("no connection to Kafka at " + bootstrap + " since ")
                    .contains("; serving parameter version 0 meanwhile");
            // A start refused for it (kafka.params.requireOnStart) quotes the problem, not the serving it will not do.
            assertThat(KafkaServices.lastProblem(st.lastError())).isEqualTo("; last problem: "
                    + st.lastError().substring(0, st.lastError().indexOf("; serving parameter version")));
            assertThat(l.kafkaConnected()).isFalse();
            String metrics = scrape(l, bootstrap);
            assertThat(gauge(metrics, "tierroute_params_kafka_connected")).isZero();
            assertThat(gauge(metrics, "tierroute_params_kafka_unreachable_seconds")).isGreaterThanOrEqualTo(5);
            Map<String, Object> block = new KafkaPartsReport(bootstrap, "default", null, l, null, null).status();
            assertThat(String.valueOf(block.get("params"))).contains("kafka_connected=false")
                    .contains("kafka_unreachable_since=" + BrokerContact.isoTime(st.kafkaUnreachableSinceMs()));
        }
    }

    @Test
    void aStoppedBrokerIsReportedAndTheLoaderFollowsAgainWhenItIsBackWithoutANewSession() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            for (Topics.Spec s : Topics.specs()) {
                kafka.createTopic(s.name(), s.partitions(), s.configs());
            }
            String bootstrap = kafka.bootstrapServers();
            publish(bootstrap, 1);
            ParameterStore store = new ParameterStore(ParameterSet.defaults(2));
            try (ParameterLoader l = loader(KafkaSettings.defaults(bootstrap), store)) {
                assertThat(l.awaitReady(Duration.ofSeconds(30))).isTrue();
                await(Duration.ofSeconds(10), () -> store.current().version() == 1, "v1 applied");
                // Idle past the threshold: nothing published, the broker up: in contact all along.
                long idleUntil = System.nanoTime() + BrokerContact.DEFAULT_THRESHOLD.plusSeconds(1).toNanos();
                while (System.nanoTime() < idleUntil) {
                    assertThat(l.status().kafkaUnreachableSinceMs()).as("an idle loader on a live broker").isNull();
                    Thread.sleep(100);
                }
                assertThat(l.status().lastError()).isNull();
                assertThat(gauge(scrape(l, bootstrap), "tierroute_params_kafka_connected")).isEqualTo(1);
                assertThat(gauge(scrape(l, bootstrap), "tierroute_params_kafka_unreachable_seconds")).isZero();

                // The loader's last contact falls between the start of the stop and its end (a broker's shutdown goes on
                // for a while after it stops answering).
                long stopping = System.currentTimeMillis();
                kafka.stopBroker();
                long down = System.currentTimeMillis();
                await(Duration.ofSeconds(12), () -> l.status().kafkaUnreachableSinceMs() != null,
                        "the loader's status to say Kafka is unreachable");
                long reported = System.currentTimeMillis() - down;
                assertThat(l.status().kafkaUnreachableSinceMs()).as("since its last contact, just before the stop")
                        .isBetween(stopping - 2000, down + 1000);
                assertThat(l.status().lastError()).startsWith("no connection to Kafka at " + bootstrap + " since ")
                        .endsWith("; serving parameter version 1 meanwhile");
                assertThat(l.status().ready()).as("ready means caught up once; it stays").isTrue();
                String first = l.status().lastError();
                await(Duration.ofSeconds(5), () -> !l.status().lastError().equals(first),
                        "the outage's seconds to be refreshed in lastError");
                assertThat(gauge(scrape(l, bootstrap), "tierroute_params_kafka_connected")).isZero();
                assertThat(gauge(scrape(l, bootstrap), "tierroute_params_kafka_unreachable_seconds")).isPositive();

                kafka.startBroker();
                await(Duration.ofSeconds(15), () -> l.status().kafkaUnreachableSinceMs() == null,
                        "the loader's status to say Kafka answers again");
                assertThat(l.status().lastError()).as("the outage's message is cleared").isNull();
                assertThat(gauge(scrape(l, bootstrap), "tierroute_params_kafka_connected")).isEqualTo(1);
                publish(bootstrap, 2);
                await(Duration.ofSeconds(20), () -> store.current().version() == 2, "v2, published after the restart");
                assertThat(l.restarts()).as("the same session follows on: nothing re-read").isZero();
                assertThat(l.paramsRecordsRead()).isEqualTo(2);
                // The same cluster back is no reset: once the identity check (every 5 s) has had an answer from the
                // restarted broker, the loader must still be on its first history.
                long answers = l.historyIdentityAnswers();
                await(Duration.ofSeconds(30), () -> l.historyIdentityAnswers() > answers,
                        "an identity answer from the restarted broker");
                assertThat(l.historyResets()).as("a broker restarted, not replaced").isZero();
                assertThat(l.status().lastHistoryReset()).isNull();
                System.out.printf("[measured] broker stop reported after %.1f s%n", reported / 1e3);
            }
        }
    }

    private static void publish(String bootstrap, long version) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            var s = snapshot("default", version).build();
            producer.send(new ProducerRecord<>(Topics.PARAMS, Topics.paramsKey("default", version)
                    .getBytes(StandardCharsets.UTF_8), io.tierroute.schemas.Codecs.PARAMETER_SNAPSHOT.encode(s)))
                    .get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("publishing v" + version + " failed", e);
        }
    }
}
