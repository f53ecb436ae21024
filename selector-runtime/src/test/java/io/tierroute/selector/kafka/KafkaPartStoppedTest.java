package io.tierroute.selector.kafka;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.BlockStored;
import io.tierroute.schemas.avro.KvEventBatch;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.config.SelectorConfig;
import io.tierroute.selector.config.ServerSettings;
import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.ingest.IndexWriter;
import io.tierroute.selector.ingest.KvEventPipeline;
import io.tierroute.selector.metrics.SelectorMetrics;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.sequences.RequestEvent;
import io.tierroute.selector.server.EmbeddedSelectorApi;
import io.tierroute.selector.sync.NumberedMessage;
import io.tierroute.selector.sync.NumberingTransport;
import io.tierroute.selector.sync.ReplicaSync;
import io.tierroute.selector.sync.direct.DirectPath;
import io.tierroute.selector.sync.direct.UdpPorts;
import io.tierroute.selector.sync.wire.ReplicaSyncWire;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

import static io.tierroute.selector.kafka.KafkaFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An Error on a Kafka part's thread (out of memory, a class that failed to load) stops that part for good, and says
 * so: not a silent death behind a healthy {@code /healthz} while the index, the parameters or the decisions stop.
 */
class KafkaPartStoppedTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final long FATAL_HASH = 777;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void setUp() throws Exception {
        KafkaFixture.resetTopics();
    }

    /** An index writer whose submit and failure the test decides; it takes no routed hints. */
    private record ScriptedWriter(java.util.function.Predicate<List<KvEvent>> submitted,
                                  java.util.function.Supplier<String> why,
                                  java.util.function.LongSupplier applied) implements IndexWriter {
        @Override
        public boolean submit(List<KvEvent> events) { return submitted.test(events); }

        @Override
        public String failure() { return why.get(); }

        @Override
        public void routed(int worker, long[] blockHashes, int blocks, long nowNanos, long ttlNanos) {}

        @Override
        public void released(int worker, long[] blockHashes, int blocks, long nowNanos, long ttlNanos) {}

        @Override
        public void expire(long nowNanos) {}

        @Override
        public long droppedRouted() { return 0; }

        @Override
        public long appliedEvents() { return applied.getAsLong(); }
    }

    /** The pipeline, but a batch storing {@link #FATAL_HASH} throws what a heap that has run out would. */
    private static IndexWriter failingOn(KvEventPipeline pipeline) {
        return new ScriptedWriter(events -> {
            for (KvEvent e : events) {
                if (e instanceof KvEvent.Stored s && s.blockHashes()[0] == FATAL_HASH) {
                    throw new OutOfMemoryError("Java heap space");
                }
            }
            return pipeline.submit(events);
        }, pipeline::failure, pipeline::appliedEvents);
    }

    private HttpResponse<String> get(EmbeddedSelectorApi api, String path) throws Exception {
        return client.send(HttpRequest.newBuilder(api.uri().resolve(path)).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static void send(KafkaProducer<byte[], byte[]> p, long seq, long hash) {
        KvEventBatch b = KvEventBatch.newBuilder().setWorker("a").setModel("m").setLora(null).setNamespace(null)
                .setSequence(seq).setTimestampMs(System.currentTimeMillis())
                .setEvents(List.of(new BlockStored(Tier.HBM, null, List.of(hash)))).build();
        KafkaFixture.send(p, Topics.KV_EVENTS, "a", Codecs.KV_EVENT_BATCH.encode(b));
    }

    /** Workers a and b, on {@code index} and {@code writer}. */
    private static Selector selector(RunPrefixIndex index, IndexWriter writer) {
        return selector(index, writer, System::nanoTime);
    }

    private static Selector selector(RunPrefixIndex index, IndexWriter writer, LongSupplier nanoClock) {
        SelectorConfig c = ConfigLoader.parse("workers: [{name: a}, {name: b}]\n", Path.of("."));
        return new Selector(c.selector(), index, writer, new ParameterStore(ParameterSet.defaults(2)), nanoClock);
    }

    private static RunPrefixIndex index() {
        return RunPrefixIndex.builder().workers(2).maxBlocks(1000).build();
    }

    @Test
    void anErrorStopsTheKvConsumerForGoodAndHealthzSaysSo() throws Exception {
        RunPrefixIndex index = index();
        try (KvEventPipeline pipeline = new KvEventPipeline(index, 100);
             KafkaProducer<byte[], byte[]> producer = KafkaFixture.producer()) {
            Selector s = selector(index, pipeline);
            try (KvEventConsumer kv = new KvEventConsumer(KafkaFixture.settings(), s.registry(), failingOn(pipeline))
                    .start()) {
                assertThat(kv.awaitAssigned(WAIT)).isTrue();
                KafkaPartsReport report = new KafkaPartsReport(KafkaFixture.broker().bootstrapServers(), "default", s,
                        null, kv, null);
                SelectorMetrics metrics = new SelectorMetrics(s, pipeline, false);
                report.register(metrics);
                try (EmbeddedSelectorApi api = EmbeddedSelectorApi.start(s, pipeline, metrics,
                        new EmbeddedSelectorApi.Settings(ServerSettings.DEFAULTS.withPort(0), null, "UNUSED",
                                report::status, null, report::stopped))) {
                    send(producer, 0, 1);
                    await(WAIT, () -> pipeline.appliedEvents() == 1, "the first batch applied");
                    assertThat(get(api, "/healthz").statusCode()).isEqualTo(200);
                    assertThat(get(api, "/metrics").body()).contains("tierroute_kafka_part_stopped{part=\"kv_consumer\"} 0.0");

                    send(producer, 1, FATAL_HASH);
                    await(WAIT, () -> kv.stopped() != null, "the consumer stopped");
                    HttpResponse<String> health = get(api, "/healthz");
                    assertThat(health.statusCode()).isEqualTo(503);
                    assertThat(health.body()).contains("a Kafka part has stopped").contains("kv consumer")
                            .contains("OutOfMemoryError").contains("applying the batch at " + Topics.KV_EVENTS + "@");
                    assertThat(get(api, "/metrics").body()).contains("tierroute_kafka_part_stopped{part=\"kv_consumer\"} 1.0");
                    assertThat(get(api, "/v1/params").body()).contains("\"stopped\":{\"kv_consumer\":");
                    await(WAIT, () -> Thread.getAllStackTraces().keySet().stream()
                            .noneMatch(t -> t.getName().equals("tierroute-kv-consumer") && t.isAlive()),
                            "the consumer's thread ended (no restart, no spin)");
                    assertThat(kv.restarts()).isZero();
                }
            }
        }
    }

    /** An index writer stopped for good stops the KV consumer too: not a session restarted on every batch. */
    @Test
    void aStoppedIndexWriterStopsTheKvConsumerWithoutRestarts() throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = KafkaFixture.producer()) {
            IndexWriter stopped = new ScriptedWriter(events -> {
                throw new IllegalStateException("the index writer has stopped (test)");
            }, () -> "java.lang.OutOfMemoryError: Java heap space, test", () -> 0);
            Selector s = selector(index(), stopped);
            try (KvEventConsumer kv = new KvEventConsumer(KafkaFixture.settings(), s.registry(), stopped).start()) {
                assertThat(kv.awaitAssigned(WAIT)).isTrue();
                send(producer, 0, 1);
                await(WAIT, () -> kv.stopped() != null, "the consumer stopped");
                assertThat(kv.stopped()).contains("the index writer has stopped").contains("OutOfMemoryError");
                send(producer, 1, 2);
                Thread.sleep(500);
                assertThat(kv.restarts()).isZero();
            }
        }
    }

    /**
     * Replica sync's direct path is a part too: an Error on its receiving thread (here applying another replica's
     * datagram) stops it for good, and {@code /healthz}, the stop gauge and {@code GET /v1/params} say so.
     */
    @Test
    void anErrorStopsTheDirectPathsReceiverAndHealthzSaysSo() throws Exception {
        int[] ports = UdpPorts.free(2); // distinct: each replica binds its own
        KafkaSettings.HostPort pa = new KafkaSettings.HostPort("127.0.0.1", ports[0]);
        KafkaSettings.HostPort pb = new KafkaSettings.HostPort("127.0.0.1", ports[1]);
        String keyEnv = "TEST_REPLICA_KEY";
        String key = "k".repeat(40);
        AtomicBoolean boom = new AtomicBoolean();
        RunPrefixIndex index = index();
        KafkaSettings d = KafkaFixture.settings();
        KafkaSettings s = new KafkaSettings(d.bootstrapServers(), d.scope(), d.clientId(), "b", d.properties(),
                d.params(), d.kvEvents(), d.decisions(), new KafkaSettings.ReplicaSync(true, Duration.ofMinutes(2),
                Duration.ofSeconds(30), 1024, new KafkaSettings.Direct(pb, List.of(pa), keyEnv, Duration.ofSeconds(5),
                1024)));
        try (KvEventPipeline pipeline = new KvEventPipeline(index, 100)) {
            Selector b = selector(index, pipeline, () -> { // what applying an event reads first
                if (boom.get()) {
                    throw new OutOfMemoryError("Java heap space");
                }
                return System.nanoTime();
            });
            // Replica a: the direct path alone, so that only b's direct receiver applies what a sends.
            RunPrefixIndex ai = index();
            Selector a = selector(ai, new DirectIndexWriter(ai));
            try (ReplicaSyncLink link = ReplicaSyncLink.start(s, b, WAIT, Map.of(keyEnv, key)::get);
                 DirectPath aPath = DirectPath.open(new KafkaSettings.Direct(pa, List.of(pb), keyEnv,
                         Duration.ofSeconds(5), 16), key, new ReplicaSyncWire("replica-a", "a", d.scope(), a.registry()))) {
                aPath.start(new ReplicaSync(a, new NumberingTransport(List.of(aPath)), System::nanoTime,
                        Duration.ofSeconds(30), 1000));
                KafkaPartsReport report = new KafkaPartsReport(d.bootstrapServers(), d.scope(), b, null, null, null,
                        link);
                SelectorMetrics metrics = new SelectorMetrics(b, pipeline, false);
                report.register(metrics);
                try (EmbeddedSelectorApi api = EmbeddedSelectorApi.start(b, pipeline, metrics,
                        new EmbeddedSelectorApi.Settings(ServerSettings.DEFAULTS.withPort(0), null, "UNUSED",
                                report::status, null, report::stopped))) {
                    assertThat(get(api, "/healthz").statusCode()).isEqualTo(200);
                    assertThat(get(api, "/metrics").body())
                            .contains("tierroute_kafka_part_stopped{part=\"replica_direct_in\"} 0.0")
                            .contains("tierroute_kafka_part_stopped{part=\"replica_direct_out\"} 0.0");

                    boom.set(true);
                    aPath.send(new NumberedMessage(1, null, new RequestEvent("r1", RequestEvent.Type.FIRST_TOKEN, 1),
                            System.currentTimeMillis()));
                    await(WAIT, () -> link.direct().receiverStopped() != null, "the direct receiver stopped");
                    boom.set(false);
                    HttpResponse<String> health = get(api, "/healthz");
                    assertThat(health.statusCode()).isEqualTo(503);
                    assertThat(health.body()).contains("a Kafka part has stopped").contains("replica direct receiver")
                            .contains("OutOfMemoryError").contains("receiving replica datagrams on /127.0.0.1:"
                                    + pb.port());
                    assertThat(get(api, "/metrics").body())
                            .contains("tierroute_kafka_part_stopped{part=\"replica_direct_in\"} 1.0")
                            .contains("tierroute_kafka_part_stopped{part=\"replica_direct_out\"} 0.0");
                    assertThat(get(api, "/v1/params").body()).contains("\"stopped\":{\"replica_direct_in\":");
                }
            }
        }
    }

    /**
     * The sending thread of a publisher: an Error stops it for good, and what is offered after is counted as closed,
     * not left to fill the buffer as buffer_full drops.
     */
    @Test
    void anErrorStopsAPublisherForGoodAndLaterItemsCountAsClosed() throws Exception {
        HandOffProducer<String> out = new HandOffProducer<>(KafkaFixture.settings(),
                new HandOffProducer.Names("test publisher", "items", Topics.DECISIONS, "tierroute-test-out"), "test", 4,
                new Properties(), (String item) -> {
                    if (item.equals("boom")) {
                        throw new NoClassDefFoundError("io/tierroute/Missing");
                    }
                    return new ProducerRecord<>(Topics.DECISIONS, item.getBytes(StandardCharsets.UTF_8));
                }, (String item) -> item).start();
        try {
            out.offer(() -> "a");
            await(WAIT, () -> out.acknowledged() == 1, "the first item acknowledged");
            out.offer(() -> "boom");
            await(WAIT, () -> out.stopped() != null, "the sending thread stopped");
            assertThat(out.stopped()).contains("NoClassDefFoundError").contains("sending items to " + Topics.DECISIONS);
            for (int i = 0; i < 10; i++) {
                out.offer(() -> "later");
            }
            assertThat(out.droppedClosed()).isEqualTo(11); // "boom" and the 10 after it
            assertThat(out.droppedBufferFull()).isZero();
        } finally {
            out.close();
        }
    }
}
