package io.tierroute.dashboards;

import io.tierroute.schemas.avro.ParameterSnapshot;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Owns, per test, the {@link Broker}'s topics emptied and seeded with snapshots, the producer that seeded
 * them, and the dashboard the test starts; closes both after the test (after its own {@code @AfterEach}).
 * Register it with {@code @RegisterExtension final DashboardFixture fixture = DashboardFixture.seededWith(...)}.
 */
public final class DashboardFixture implements BeforeEachCallback, AfterEachCallback {

    private static final Duration READY = Duration.ofSeconds(30);

    private final List<ParameterSnapshot> seed;
    private KafkaProducer<byte[], byte[]> producer;
    private Dashboard dashboard;

    private DashboardFixture(List<ParameterSnapshot> seed) {
        this.seed = seed;
    }

    /** Before each test: empty topics, then {@code snapshots} published on them in this order. */
    public static DashboardFixture seededWith(ParameterSnapshot.Builder... snapshots) {
        return new DashboardFixture(Arrays.stream(snapshots).map(ParameterSnapshot.Builder::build).toList());
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        Broker.resetTopics();
        producer = Broker.producer();
        publishSeed();
    }

    /** Empties the topics again and republishes the seed: a fresh start within one test. */
    public void reseed() throws Exception {
        Broker.resetTopics();
        publishSeed();
    }

    private void publishSeed() throws Exception {
        for (ParameterSnapshot s : seed) {
            Broker.publish(producer, s);
        }
    }

    /** The producer that published the seed, for a test publishing more. */
    public KafkaProducer<byte[], byte[]> producer() {
        return producer;
    }

    /** Starts a dashboard (closed after the test) and waits until its history has caught up with the topics. */
    public Dashboard startDashboard(Dashboard.Settings settings) throws InterruptedException {
        dashboard = Dashboard.start(settings);
        assertThat(dashboard.reader().awaitReady(READY)).as("dashboard history ready").isTrue();
        return dashboard;
    }

    /** Closes the dashboard started last, if any, before the test ends. */
    public void closeDashboard() {
        if (dashboard != null) {
            dashboard.close();
            dashboard = null;
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        try {
            closeDashboard();
        } finally {
            if (producer != null) {
                producer.close();
                producer = null;
            }
        }
    }
}
