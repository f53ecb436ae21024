package io.tierroute.selector.kafka;

import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.config.SelectorConfig;
import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.ingest.KvEventPipeline;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.scheduling.Selector;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A shutdown from an interrupted thread (a shutdown hook under an executor's shutdownNow, a test framework's timeout)
 * still stops every Kafka part, replica sync's direct path included: no exception, no thread left, and the caller's
 * interrupt kept.
 */
class InterruptedCloseTest {

    @BeforeEach
    void setUp() throws Exception {
        KafkaFixture.resetTopics();
    }

    @Test
    void closingFromAnInterruptedThreadStopsEveryPart() throws Exception {
        SelectorConfig c = ConfigLoader.parse("workers: [{name: w0}, {name: w1}]\n", Path.of("."));
        RunPrefixIndex index = RunPrefixIndex.builder().workers(2).maxBlocks(1000).build();
        KafkaSettings d = KafkaFixture.settings();
        int port;
        try (DatagramChannel free = DatagramChannel.open()) {
            free.bind(new InetSocketAddress("127.0.0.1", 0));
            port = ((InetSocketAddress) free.getLocalAddress()).getPort();
        }
        KafkaSettings.HostPort listen = new KafkaSettings.HostPort("127.0.0.1", port);
        KafkaSettings s = new KafkaSettings(d.bootstrapServers(), d.scope(), d.clientId(), d.selectorId(), d.properties(),
                d.params(), d.kvEvents(), d.decisions(),
                new KafkaSettings.ReplicaSync(true, Duration.ofSeconds(10), Duration.ofSeconds(30), 1024,
                        new KafkaSettings.Direct(listen, List.of(listen), "TEST_REPLICA_KEY", Duration.ofSeconds(5),
                                1024)));
        Map<String, String> env = Map.of("TEST_REPLICA_KEY", "k".repeat(40));
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        try (KvEventPipeline pipeline = new KvEventPipeline(index, 1024)) {
            ParameterStore store = new ParameterStore(ParameterSet.defaults(2));
            Selector selector = new Selector(c.selector(), index, pipeline, store, System::nanoTime);
            KafkaServices services = KafkaServices.start(s, selector, store, pipeline, CostParameters.DEFAULTS, 0.5,
                    env::get);
            assertThat(services.kvConsumer().awaitAssigned(Duration.ofSeconds(20))).isTrue();
            assertThat(services.replicaSync().direct()).as("the direct path is on").isNotNull();

            Thread.currentThread().interrupt();
            long t0 = System.nanoTime();
            try {
                services.close();
                assertThat(Thread.currentThread().isInterrupted()).as("the caller's interrupt is kept").isTrue();
            } finally {
                Thread.interrupted();
            }
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("a close, not the waits' timeouts")
                    .isLessThan(Duration.ofSeconds(10));
            List<String> left = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> !before.contains(t) && t.isAlive() && ours(t.getName()))
                    .map(Thread::getName).sorted().collect(Collectors.toList());
            assertThat(left).as("threads of the Kafka parts still alive after close").isEmpty();
        }
    }

    /** A part's own thread, or a thread of one of its Kafka clients (named after the client id); not the test's writer. */
    private static boolean ours(String name) {
        return (name.startsWith("tierroute-") || name.contains("tierroute-selector"))
                && !name.equals("tierroute-index-writer");
    }
}
