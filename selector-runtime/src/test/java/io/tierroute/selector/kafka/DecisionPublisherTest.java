package io.tierroute.selector.kafka;

import io.tierroute.deploy.local.LoopbackPorts;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.PredictionSource;
import io.tierroute.schemas.avro.RoutingDecision;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.scheduling.RouteDecision;
import io.tierroute.selector.scheduling.RouteRequest;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.scheduling.SelectorSettings;
import io.tierroute.selector.scheduling.WorkerSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Decisions reach tierroute.decisions with their breakdown; a route never waits for the producer. */
class DecisionPublisherTest {

    private static final int BLOCK = 16;

    private Selector selector(int workers) {
        List<WorkerSpec> specs = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            specs.add(WorkerSpec.of("w" + w, 1_000_000));
        }
        SelectorSettings settings = SelectorSettings.builder(specs).blockSize(BLOCK).model("m").seed(7L).build();
        NaiveReferenceIndex index = new NaiveReferenceIndex(workers);
        return new Selector(settings, index, new DirectIndexWriter(index),
                new ParameterStore(ParameterSet.defaults(workers)), System::nanoTime);
    }

    private static int[] prompt(int seed, int tokens) {
        int[] t = new int[tokens];
        for (int i = 0; i < tokens; i++) {
            t[i] = seed * 1_000_003 + i;
        }
        return t;
    }

    @BeforeEach
    void setUp() throws Exception {
        KafkaFixture.resetTopics();
    }

    @Test
    void everyAdmittedRouteIsPublishedWithItsBreakdownAndFeatures() throws Exception {
        Selector selector = selector(3);
        Map<String, RouteDecision> routed = new HashMap<>();
        try (DecisionPublisher pub = new DecisionPublisher(KafkaFixture.settings(), "m").start()) {
            selector.decisionSink(pub);
            int[] p1 = prompt(1, 256);
            RouteRequest probe = new RouteRequest("probe", null, null, null, p1, null, null, null, 64, null, null, false);
            selector.preview(probe); // previews are not published
            for (int i = 0; i < 20; i++) {
                RouteRequest r = new RouteRequest("req-" + i, null, null, null, prompt(i % 4, 256), null, null, null, 64,
                        i % 2 == 0 ? 30 : null, new RouteRequest.AgentContext("wf-" + (i % 3), Integer.toString(i),
                        List.of("search")), false);
                RouteDecision d = selector.route(r).get();
                routed.put(d.requestId(), d);
            }
            KafkaFixture.await(Duration.ofSeconds(20), () -> pub.acknowledged() == 20, "20 decisions acknowledged");
            assertThat(pub.offered()).isEqualTo(20);
            assertThat(pub.droppedBufferFull()).isZero();
        }
        Map<String, RoutingDecision> read = readDecisions(20);
        assertThat(read.keySet()).isEqualTo(routed.keySet());
        for (RouteDecision d : routed.values()) {
            RoutingDecision r = read.get(d.requestId());
            assertThat(r.getChosenWorker()).isEqualTo(d.worker());
            assertThat(r.getSelectorId()).isEqualTo("tierroute-selector");
            assertThat(r.getScope()).isEqualTo("default");
            assertThat(r.getSnapshotVersion()).isZero();
            assertThat(r.getCandidateCount()).isEqualTo(3);
            assertThat(r.getCost().getTotalUs()).isCloseTo(d.chosen().totalUs(), within(1e-9));
            assertThat(r.getCost().getPrefillUs()).isCloseTo(d.chosen().prefillUs(), within(1e-9));
            assertThat(r.getCost().getDecodeUs()).isCloseTo(d.chosen().decodeUs(), within(1e-9));
            assertThat(r.getCost().getHolUs()).isCloseTo(d.chosen().headOfLineUs(), within(1e-9));
            assertThat(r.getCost().getWorkflowBonusUs()).isCloseTo(d.chosen().workflowBonusUs(), within(1e-9));
            assertThat(r.getFeatures().getPEffTokens()).isEqualTo(d.chosen().pEffTokens());
            assertThat(r.getFeatures().getInflightDecodeTokens()).isEqualTo((double) d.chosen().inflightDecodeTokens());
            assertThat(r.getFeatures().getQueueLength()).isEqualTo(d.chosen().queueLength());
            // The terms added after DESIGN.md §3 (C_queue, C_harm, C_own) and their regressors.
            assertThat(r.getCost().getQueueUs()).isCloseTo(d.chosen().queueUs(), within(1e-9));
            assertThat(r.getCost().getHarmUs()).isCloseTo(d.chosen().harmUs(), within(1e-9));
            assertThat(r.getCost().getOwnDecodeUs()).isCloseTo(d.chosen().ownDecodeUs(), within(1e-9));
            assertThat(r.getCost().getKvOverflowHarmUs()).isCloseTo(d.chosen().kvOverflowHarmUs(), within(1e-9));
            assertThat(r.getCost().getKvWaitUs()).isCloseTo(d.chosen().kvWaitUs(), within(1e-9));
            assertThat(r.getFeatures().getQueuedPrefillTokens()).isEqualTo(d.chosen().queuedPrefillTokens());
            assertThat(r.getFeatures().getInFlight()).isEqualTo(d.chosen().inFlight());
            assertThat(r.getFeatures().getKvUsedTokens()).isEqualTo(d.chosen().kvUsedTokens());
            assertThat(r.getFeatures().getOwnDecodeKvTokenSteps()).isCloseTo(d.chosen().ownDecodeKvTokenSteps(), within(1e-9));
            assertThat(r.getRequest().getIsl()).isEqualTo(256);
            assertThat(r.getRequest().getModel()).isEqualTo("m");
            assertThat(r.getRequest().getMaxTokens()).isEqualTo(64);
            assertThat(r.getRequest().getExpectedTool()).isEqualTo("search");
            assertThat(r.getRequest().getStepIndex()).isEqualTo(Integer.parseInt(d.requestId().substring(4)));
            assertThat(r.getRequest().getPredictedOutputTokens()).isEqualTo(d.predictedOutputTokens());
            assertThat(r.getRequest().getPredictionSource())
                    .isEqualTo(d.predictedOutputTokens() == 30 ? PredictionSource.HINT : PredictionSource.MAX_TOKENS_HALF);
            assertThat(r.getRequest().getPrefixGroupId()).isNotZero();
        }
        // A workflow's second step knows how long the workflow was idle (0 while its first step still runs).
        assertThat(read.get("req-3").getFeatures().getIdleSinceLastStepMs()).isNotNull();
        assertThat(read.get("req-0").getFeatures().getIdleSinceLastStepMs()).isNull();
    }

    @Test
    void aTierHitShowsAsATransferInTheFeatures() throws Exception {
        Selector selector = selector(1);
        int[] p = prompt(9, 128);
        RouteRequest probe = new RouteRequest("probe", null, null, null, p, null, null, null, 64, null, null, false);
        selector.preview(probe);
        // Store the prompt's blocks on the CPU tier of w0 through the index writer.
        long[] h = new long[8];
        var hasher = new io.tierroute.selector.protocol.BlockHasher();
        assertThat(hasher.hashTokens(p, p.length, BLOCK, io.tierroute.selector.protocol.BlockHasher.salt("m", null, null), h))
                .isEqualTo(8);
        selector.indexWriter().submit(List.of(new KvEvent.Stored(0, Tier.CPU, false, 0, h)));
        try (DecisionPublisher pub = new DecisionPublisher(KafkaFixture.settings(), "m").start()) {
            selector.decisionSink(pub);
            RouteDecision d = selector.route(new RouteRequest("tiered", null, null, null, p, null, null, null, 64, null,
                    null, false)).get();
            assertThat(d.chosen().tierTokens()[Tier.CPU.ordinal()]).isPositive();
            KafkaFixture.await(Duration.ofSeconds(20), () -> pub.acknowledged() == 1, "acknowledged");
        }
        RoutingDecision r = readDecisions(1).get("tiered");
        assertThat(r.getFeatures().getTierTransfers()).hasSize(1);
        assertThat(r.getFeatures().getTierTransfers().get(0).getTier()).isEqualTo(io.tierroute.schemas.avro.Tier.CPU);
        assertThat(r.getFeatures().getTierTransfers().get(0).getHitTokens()).isEqualTo(128 - 16); // the last block is recomputed
        assertThat(r.getCost().getTierUs()).isPositive();
    }

    @Test
    void anUnreachableBrokerAndATinyBufferDropDecisionsButNeverBlockARoute() throws Exception {
        // Nothing listens there: a port below the OS's ephemeral range, where servers that bind port 0 get theirs.
        int deadPort = LoopbackPorts.free();
        // A producer block (max.block.ms) well above what scheduling can add to a route on a busy machine, so the two
        // cannot be confused below.
        KafkaSettings settings = KafkaSettings.defaults("127.0.0.1:" + deadPort)
                .withProperties(Map.of("max.block.ms", "6000"))
                .withDecisions(new KafkaSettings.Decisions(true, 4, Duration.ofMillis(5), 16384, "none"));
        Selector selector = selector(4);
        long worstNanos = 0;
        int routes = 2000;
        DecisionPublisher pub = new DecisionPublisher(settings, "m").start();
        try {
            selector.decisionSink(pub);
            for (int i = 0; i < routes; i++) {
                RouteRequest r = new RouteRequest("r" + i, null, null, null, prompt(i, 64), null, null, null, 16, null,
                        null, false);
                long t0 = System.nanoTime();
                selector.route(r).get();
                worstNanos = Math.max(worstNanos, System.nanoTime() - t0);
            }
            assertThat(pub.offered()).isEqualTo(routes);
            // The producer thread is stuck waiting for metadata (max.block.ms 6 s): at most the buffer and
            // the one record in its hands got through the offer; the rest were dropped and counted.
            assertThat(pub.droppedBufferFull()).isGreaterThanOrEqualTo(routes - 4 - 512);
            assertThat(pub.acknowledged()).isZero();
            // A route that waited for the producer would take its whole 6 s block (max.block.ms); below that is
            // scheduling, which reached 1.15 s once on a machine at load 37 (the bound was 0.5 s then).
            assertThat(worstNanos).as("the slowest route (ns) never waited for the 6 s producer block")
                    .isLessThan(Duration.ofMillis(5000).toNanos());
        } finally {
            long t0 = System.nanoTime();
            pub.close();
            assertThat(System.nanoTime() - t0).as("close is bounded").isLessThan(Duration.ofSeconds(15).toNanos());
        }
        assertThat(pub.acknowledged()).isZero();
        assertThat(pub.droppedBufferFull() + pub.sendFailed() + pub.encodeFailed() + pub.droppedClosed())
                .as("every decision is accounted for in exactly one drop reason").isEqualTo(routes);
        long closed = pub.droppedClosed();
        pub.decided(null, null, 0, 0, -1, -1, 0);
        assertThat(pub.droppedClosed()).as("offered after close: counted, not buffered").isEqualTo(closed + 1);
        assertThat(pub.backlog()).isZero();
    }

    /**
     * A bootstrap host that does not resolve made the producer refuse to be built, and the selector's start with it,
     * whatever params.requireOnStart said (a DNS blip, a Kafka Service not created yet: a crash loop). The publisher
     * now starts without a producer, decisions wait in the buffer, and every one is still accounted for.
     */
    @Test
    void aBootstrapHostThatDoesNotResolveDoesNotFailTheStart() throws Exception {
        KafkaSettings settings = KafkaSettings.defaults("no-such-host.invalid:9092")
                .withDecisions(new KafkaSettings.Decisions(true, 8, Duration.ofMillis(5), 16384, "none"));
        Selector selector = selector(4);
        DecisionPublisher pub = new DecisionPublisher(settings, "m").start();
        try {
            assertThat(pub.hasProducer()).isFalse();
            selector.decisionSink(pub);
            for (int i = 0; i < 20; i++) {
                selector.route(new RouteRequest("u" + i, null, null, null, prompt(i, 64), null, null, null, 16, null,
                        null, false)).get();
            }
            assertThat(pub.offered()).isEqualTo(20);
            assertThat(pub.backlog()).as("waiting for a producer").isEqualTo(8);
            assertThat(pub.droppedBufferFull()).isEqualTo(12);
            Thread.sleep(1_500); // past the first retry: still no such host
            assertThat(pub.hasProducer()).isFalse();
        } finally {
            pub.close();
        }
        assertThat(pub.droppedBufferFull() + pub.droppedClosed()).isEqualTo(20);
        assertThat(pub.sent()).isZero();
        // a setting the producer refuses for another reason still fails the start
        KafkaSettings bad = KafkaSettings.defaults("127.0.0.1:9").withProperties(Map.of("compression.type", "zip"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new DecisionPublisher(bad, "m"))
                .isInstanceOf(org.apache.kafka.common.KafkaException.class);
    }

    /**
     * Kafka refuses a producer whose delivery timeout is below its linger plus its request timeout. A long
     * {@code linger.ms} given alone (a fleet's client file for every client) made the selector's own 30 s default that
     * refusal, and the start failed; the default now makes room for it. A delivery timeout the user gives too short for
     * the linger is still refused, by Kafka's reason.
     */
    @Test
    void aLongLingerGivenAloneStartsThePublisherAndOneAgainstAShortDeliveryTimeoutIsRefused() {
        KafkaSettings lingering = KafkaSettings.defaults("127.0.0.1:9").withProperties(Map.of("linger.ms", "60000"));
        try (DecisionPublisher pub = new DecisionPublisher(lingering, "m")) {
            assertThat(pub.hasProducer()).isTrue();
        }
        KafkaSettings contradictory = KafkaSettings.defaults("127.0.0.1:9")
                .withProperties(Map.of("linger.ms", "60000", "delivery.timeout.ms", "30000"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new DecisionPublisher(contradictory, "m"))
                .rootCause().hasMessageContaining("delivery.timeout.ms should be equal to or larger than linger.ms");
    }

    /**
     * A stop waits a few seconds for the last decisions' acknowledgements; a long linger held them past that wait and
     * the run ended as if they were lost. {@code flushSoon} has the producer send them at once.
     */
    @Test
    void flushSoonSendsWhatALongLingerHolds() throws Exception {
        KafkaSettings lingering = KafkaFixture.settings()
                .withDecisions(new KafkaSettings.Decisions(true, 64, Duration.ofSeconds(60), 262_144, "none"));
        Selector selector = selector(3);
        try (DecisionPublisher pub = new DecisionPublisher(lingering, "m").start()) {
            selector.decisionSink(pub);
            for (int i = 0; i < 5; i++) {
                selector.route(new RouteRequest("l" + i, null, null, null, prompt(i, 64), null, null, null, 16, null,
                        null, false)).get();
            }
            KafkaFixture.await(Duration.ofSeconds(20), () -> pub.sent() == 5, "5 decisions handed to the producer");
            Thread.sleep(1_000);
            assertThat(pub.acknowledged()).as("held for the 60 s linger").isZero();
            pub.flushSoon();
            KafkaFixture.await(Duration.ofSeconds(20), () -> pub.acknowledged() == 5, "5 decisions acknowledged");
        }
    }

    private static Map<String, RoutingDecision> readDecisions(int expected) {
        Properties p = new Properties();
        p.put("bootstrap.servers", KafkaFixture.broker().bootstrapServers());
        Map<String, RoutingDecision> out = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            c.partitionsFor(Topics.DECISIONS).forEach(i -> parts.add(new TopicPartition(Topics.DECISIONS, i.partition())));
            c.assign(parts);
            c.seekToBeginning(parts);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (out.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    RoutingDecision d = Codecs.ROUTING_DECISION.decode(r.value());
                    assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo(d.getRequestId());
                    assertThat(out.put(d.getRequestId(), d)).as("one record per request").isNull();
                }
            }
        }
        assertThat(out).hasSize(expected);
        return out;
    }
}
