package io.tierroute.sim.live;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.CompletionLog;
import io.tierroute.schemas.avro.RequestStatus;
import io.tierroute.schemas.avro.TierTokens;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.sim.engine.EngineConfig;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.workload.RequestFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The live fleet publishes the engine's realised phases and instants in its completion logs, and paces
 * itself across an operator's hold, over a real broker.
 */
class LiveFleetTest {

    private static EmbeddedKafka kafka;

    @BeforeAll
    static void broker() {
        kafka = EmbeddedKafka.start();
        for (Topics.Spec s : Topics.specs()) {
            kafka.createTopic(s.name(), s.partitions(), s.configs());
        }
    }

    @AfterAll
    static void stopBroker() {
        kafka.close();
    }

    /** One worker with 1,000 blocks of HBM: the fleet of the drain and late-binding tests. */
    private static final EngineConfig ONE_WORKER = EngineConfig.builder().workers(1).blockSize(16)
            .hbmCapacityTokens(16_000).build();
    private static final RequestFactory ONE_WORKER_REQUESTS = new RequestFactory(ONE_WORKER.model(), 16);

    /** A started live fleet of {@link #ONE_WORKER} at {@code timeScale}, default parameters, scope "test". */
    private static LiveFleet oneWorkerFleet(List<SimRequest> requests, double timeScale, FleetPublisher publisher) {
        return new LiveFleet(ONE_WORKER, requests, timeScale, "test", new ParameterStore(ParameterSet.defaults(1)), null,
                publisher, 1).start();
    }

    private static long[] ids(long base) {
        return new long[] {base, base + 1, base + 2};
    }

    @Test
    void completionLogsCarryTheRealisedQueueWaitAndTierLoadTimes() throws Exception {
        // One worker with 4 blocks of HBM: "other" evicts "first" to the CPU tier, "again" loads it back over
        // the link; q1 and q2 arrive together and each needs all 4 blocks, so q2 queues until q1 finishes.
        EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(16).hbmCapacityTokens(64).cpuCapacityTokens(1600)
                .build();
        RequestFactory f = new RequestFactory(cfg.model(), 16);
        List<SimRequest> requests = List.of(
                f.request("first", 0, 49, ids(1), 1, 1, null),
                f.request("other", 1_000_000, 49, ids(10), 1, 1, null),
                f.request("again", 2_000_000, 49, ids(1), 1, 1, null),
                f.request("q1", 3_000_000, 49, ids(20), 10, 10, null),
                f.request("q2", 3_000_000, 49, ids(30), 10, 10, null));
        try (FleetPublisher publisher = new FleetPublisher(kafka.bootstrapServers(), 1, cfg.model())) {
            LiveFleet fleet = new LiveFleet(cfg, requests, 100, "test", new ParameterStore(ParameterSet.defaults(1)),
                    null, publisher, 1).start();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!fleet.done() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(fleet.done()).as("the live run ended").isTrue();
            assertThat(fleet.failure()).isNull();
        }

        Map<String, CompletionLog> logs = completions(requests);
        assertThat(logs).containsOnlyKeys("first", "other", "again", "q1", "q2");
        assertThat(logs.values()).allSatisfy(c -> {
            assertThat(c.getStatus()).isEqualTo(RequestStatus.OK);
            assertThat(c.getQueueWaitUs() + c.getTierLoadUs() + c.getPrefillUs()).isEqualTo(c.getTtftUs());
        });

        CompletionLog again = logs.get("again");
        long loadMicros = (long) Math.ceil(48 * cfg.bytesPerToken() / 64e3); // 64e9 B/s = 64e3 B/µs
        assertThat(again.getTierLoadUs()).isEqualTo(loadMicros);
        assertThat(again.getCachedTokens()).extracting(TierTokens::getTokens).containsExactly(48);
        assertThat(logs.get("first").getTierLoadUs()).isZero();

        assertThat(logs.get("q1").getQueueWaitUs()).isZero();
        // q2 waits for all of q1: its 49-token prefill and 9 decode steps.
        assertThat(logs.get("q2").getQueueWaitUs()).isGreaterThanOrEqualTo(logs.get("q1").getTtftUs());
        assertThat(logs.get("q2").getQueueWaitUs()).isGreaterThan(0);
    }

    /**
     * An arrival held while every worker is drained (an operator's hold) leaves the pacing where it was: once
     * a worker is back, the virtual clock goes on at the time scale instead of replaying the held wall time at
     * once (which would burst the fleet's requests, telemetry and completions).
     */
    @Test
    void afterAHoldTheFleetResumesAtTheTimeScaleInsteadOfCatchingUp() throws Exception {
        EngineConfig cfg = EngineConfig.builder().workers(2).blockSize(16).hbmCapacityTokens(16_000).build();
        RequestFactory f = new RequestFactory(cfg.model(), 16);
        List<SimRequest> requests = new ArrayList<>();
        for (int i = 0; i < 400; i++) { // one every 0.1 virtual s: 40 s, 4 wall seconds at time scale 10
            requests.add(f.request("pace-" + i, i * 100_000L, 32, ids(1_000 + 10L * i), 4, 4, null));
        }
        double timeScale = 10;
        try (FleetPublisher publisher = new FleetPublisher(kafka.bootstrapServers(), 2, cfg.model());
             LiveFleet fleet = new LiveFleet(cfg, requests, timeScale, "test", new ParameterStore(ParameterSet.defaults(2)),
                     null, publisher, 1).start()) {
            awaitTrue(() -> fleet.routed() >= 5, "five routes");
            drainAll(fleet, true);
            awaitTrue(() -> fleet.held() == 1, "an arrival held");
            double atHold = fleet.virtualSeconds();
            Thread.sleep(1500);
            assertThat(fleet.virtualSeconds()).as("the virtual clock stands still during the hold").isEqualTo(atHold);

            drainAll(fleet, false);
            long t0 = System.nanoTime();
            Thread.sleep(1000);
            double advanced = fleet.virtualSeconds() - atHold;
            double wall = (System.nanoTime() - t0) / 1e9;
            assertThat(fleet.failure()).isNull();
            // At the time scale: ~10 virtual s in this ~1 s; catching up would jump the 15 s of the hold at once.
            assertThat(advanced).as("virtual seconds in %.2f wall s after the undrain", wall)
                    .isGreaterThan(2).isLessThan(timeScale * wall + 3);
        }
    }

    /**
     * A hold moves the pacing origin; the completion log of a request in flight across it still carries the
     * instants it arrived and got its first token (before the hold), and a held arrival is dispatched after it.
     */
    @Test
    void completionLogsKeepTheInstantsOfRequestsInFlightAcrossAHold() throws Exception {
        RequestFactory f = ONE_WORKER_REQUESTS;
        // "hold-long" decodes 400 tokens (≥ 5.7 ms a step: over 2 s); "hold-next" arrives at 0.3 s and is held.
        List<SimRequest> requests = List.of(f.request("hold-long", 0, 32, ids(5_000), 400, 400, null),
                f.request("hold-next", 300_000, 32, ids(6_000), 4, 4, null));
        long drainedAt;
        long heldAt;
        long undrainedAt;
        try (FleetPublisher publisher = new FleetPublisher(kafka.bootstrapServers(), 1, ONE_WORKER.model());
             LiveFleet fleet = oneWorkerFleet(requests, 1, publisher)) {
            awaitTrue(() -> fleet.routed() == 1, "hold-long routed");
            drainAll(fleet, true);
            drainedAt = System.currentTimeMillis();
            awaitTrue(() -> fleet.held() == 1, "hold-next held");
            heldAt = System.currentTimeMillis();
            Thread.sleep(1500);
            undrainedAt = System.currentTimeMillis();
            drainAll(fleet, false);
            awaitTrue(fleet::done, "the run ended");
            assertThat(fleet.failure()).isNull();
        }
        Map<String, CompletionLog> logs = completions(requests);
        CompletionLog held = logs.get("hold-next");
        CompletionLog across = logs.get("hold-long");
        assertThat(across.getStatus()).isEqualTo(RequestStatus.OK);
        assertThat(across.getArrivalTimeMs()).as("hold-long arrived before the drain").isLessThanOrEqualTo(drainedAt);
        assertThat(across.getDispatchedTimeMs()).isEqualTo(across.getArrivalTimeMs());
        assertThat(across.getFirstTokenTimeMs()).as("hold-long's first token came before the hold")
                .isBetween(across.getArrivalTimeMs(), heldAt);
        assertThat(across.getFinishedTimeMs()).as("hold-long finished after the undrain").isGreaterThanOrEqualTo(undrainedAt);
        assertThat(held.getArrivalTimeMs()).as("hold-next arrived before the hold ended").isLessThanOrEqualTo(heldAt);
        assertThat(held.getDispatchedTimeMs()).as("hold-next left after the undrain").isGreaterThanOrEqualTo(undrainedAt - 20);
    }

    private static long[] blocks(long base, int n) {
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            out[i] = base + i;
        }
        return out;
    }

    /**
     * Late binding, as the benchmark runs it: an arrival while the one worker has a request waiting for its first
     * token is held by the selector and delivered at that first token; its completion log starts at the delivery.
     */
    @Test
    void anArrivalWhileTheWorkerWaitsIsHeldUntilTheFirstToken() throws Exception {
        RequestFactory f = ONE_WORKER_REQUESTS;
        List<SimRequest> requests = List.of(f.request("lb-first", 0, 4_000, blocks(70_000, 250), 4, 4, null),
                f.request("lb-second", 1_000, 49, ids(71_000), 4, 4, null));
        try (FleetPublisher publisher = new FleetPublisher(kafka.bootstrapServers(), 1, ONE_WORKER.model());
             LiveFleet fleet = oneWorkerFleet(requests, 1, publisher)) {
            awaitTrue(fleet::done, "the run ended");
            assertThat(fleet.failure()).isNull();
            assertThat(fleet.lateBound()).as("lb-second held").isEqualTo(1);
            assertThat(fleet.finished()).isEqualTo(2);
        }
        Map<String, CompletionLog> logs = completions(requests);
        CompletionLog first = logs.get("lb-first");
        CompletionLog second = logs.get("lb-second");
        assertThat(second.getStatus()).isEqualTo(RequestStatus.OK);
        assertThat(second.getDispatchedTimeMs()).as("delivered at lb-first's first token")
                .isGreaterThanOrEqualTo(first.getFirstTokenTimeMs());
        assertThat(second.getQueueWaitUs() + second.getTierLoadUs() + second.getPrefillUs()).isEqualTo(second.getTtftUs());
    }

    /**
     * A held arrival that an operator's undrain places (on the HTTP thread, not the simulation's) is handed to the
     * simulation thread and delivered there.
     */
    @Test
    void aHeldArrivalPlacedByAnUndrainOnAnotherThreadIsDelivered() throws Exception {
        RequestFactory f = ONE_WORKER_REQUESTS;
        // The worker must be drained between off-second's hold and off-first's first token: a window of wall time that
        // only the pacing gives this thread. "off-first" prefills 8,000 tokens (StepTimeModel: over 160 virtual ms, over
        // 1.6 s at time scale 0.1). A cold fleet runs behind its pacing (class loading, JIT, the producer's first sends:
        // over 1 s on 2 busy cores) and then catches up without sleeping, which closed that window when off-first came
        // first: "off-warm" takes those costs, and off-first arrives 0.4 virtual s (4 wall s) after it, once the fleet
        // keeps to its pacing. Then off-first decodes 32 tokens (over 0.8 virtual s, 8 wall s) while the undrain places
        // "off-second", which arrived 1 ms after it and was held.
        List<SimRequest> requests = List.of(f.request("off-warm", 0, 49, ids(82_000), 4, 4, null),
                f.request("off-first", 400_000, 8_000, blocks(80_000, 500), 32, 32, null),
                f.request("off-second", 401_000, 49, ids(81_000), 4, 4, null));
        long undrainedAt;
        try (FleetPublisher publisher = new FleetPublisher(kafka.bootstrapServers(), 1, ONE_WORKER.model());
             LiveFleet fleet = oneWorkerFleet(requests, 0.1, publisher)) {
            awaitTrue(() -> fleet.lateBound() == 1, "off-second held");
            drainAll(fleet, true);
            // Not the selector's waiting count, which drops before the selector's own drain at that first token (on the
            // simulation thread): undrained in between, that drain would place off-second there. Off-first's TTFT is
            // recorded after it (off-warm's is ~17 ms).
            awaitTrue(() -> fleet.ttftSeconds(1) >= 0.16, "off-first's first token, its callback done");
            assertThat(fleet.selector().queueLength()).as("the worker drained at the first token: still held").isEqualTo(1);
            undrainedAt = System.currentTimeMillis();
            drainAll(fleet, false); // places off-second on this thread, while off-first decodes
            awaitTrue(fleet::done, "the run ended");
            assertThat(fleet.failure()).isNull();
            assertThat(fleet.releasedOffThread()).isEqualTo(1);
            assertThat(fleet.lateBound()).isEqualTo(1);
            assertThat(fleet.lateBoundPlaced()).isEqualTo(1);
            assertThat(fleet.finished()).isEqualTo(3);
        }
        CompletionLog second = completions(requests).get("off-second");
        assertThat(second.getStatus()).isEqualTo(RequestStatus.OK);
        // Stamped on the pacing clock, which may run behind the wall on a loaded machine: a margin, not 0.
        assertThat(second.getDispatchedTimeMs()).isGreaterThanOrEqualTo(undrainedAt - 250);
    }

    /**
     * With every worker drained and nothing left to run but a held request, the fleet waits for a worker (its clock
     * with it) instead of ending with the request never released; the undrain delivers it.
     */
    @Test
    void withOnlyAHeldRequestLeftAndEveryWorkerDrainedTheFleetWaits() throws Exception {
        RequestFactory f = ONE_WORKER_REQUESTS;
        // The worker must be drained between idle-second's hold and idle-first's first token (whose drain would place
        // idle-second): a window of wall time that only the pacing gives this thread. A cold fleet's first route, token
        // and completion run behind its pacing (class loading, JIT, the producer's first sends: up to 1.6 s on 2 busy
        // cores) and it then catches up without sleeping, which closed that window when idle-first came first:
        // "idle-warm" takes those costs, and idle-first arrives 0.6 virtual s (2.4 wall s at time scale 0.25) after it.
        // It prefills 12,000 tokens (StepTimeModel: two chunks, 250 virtual ms, 1 wall s) and finishes (~0.95 virtual s)
        // before the telemetry at 1 virtual s, where the fleet finds nothing left to run but idle-second.
        List<SimRequest> requests = List.of(f.request("idle-warm", 0, 49, ids(92_000), 4, 4, null),
                f.request("idle-first", 600_000, 12_000, blocks(90_000, 750), 4, 4, null),
                f.request("idle-second", 601_000, 49, ids(91_000), 4, 4, null));
        try (FleetPublisher publisher = new FleetPublisher(kafka.bootstrapServers(), 1, ONE_WORKER.model());
             LiveFleet fleet = oneWorkerFleet(requests, 0.25, publisher)) {
            awaitTrue(() -> fleet.lateBound() == 1, "idle-second held");
            drainAll(fleet, true);
            awaitTrue(fleet::waitingForAWorker, "the fleet waits: nothing left to run but idle-second");
            assertThat(fleet.failure()).isNull();
            assertThat(fleet.finished()).isEqualTo(2);
            assertThat(fleet.selector().queueLength()).isEqualTo(1);

            drainAll(fleet, false);
            awaitTrue(fleet::done, "the run ended");
            assertThat(fleet.failure()).isNull();
            assertThat(fleet.lateBound()).isEqualTo(1);
            assertThat(fleet.finished()).isEqualTo(3);
        }
    }

    /**
     * A held request the selector refuses (it stops: {@code failQueued}) was never routed: it is counted refused, not
     * failed, so that routed = finished + failed + in flight (before, it counted as failed, and finished + failed
     * exceeded routed).
     */
    @Test
    void aHeldRequestRefusedBeforeRoutingIsNotCountedAsAFailedRoute() throws Exception {
        RequestFactory f = ONE_WORKER_REQUESTS;
        // As in withOnlyAHeldRequestLeftAndEveryWorkerDrainedTheFleetWaits: "refused-warm" takes a cold fleet's costs,
        // and refused-first arrives 0.4 virtual s (4 wall s at time scale 0.1) after it; its 12,000-token prefill (250
        // virtual ms) leaves 2.5 wall s to drain in between refused-second's hold and its first token.
        List<SimRequest> requests = List.of(f.request("refused-warm", 0, 49, ids(97_000), 4, 4, null),
                f.request("refused-first", 400_000, 12_000, blocks(95_000, 750), 4, 4, null),
                f.request("refused-second", 401_000, 49, ids(96_000), 4, 4, null));
        try (FleetPublisher publisher = new FleetPublisher(kafka.bootstrapServers(), 1, ONE_WORKER.model());
             LiveFleet fleet = oneWorkerFleet(requests, 0.1, publisher)) {
            awaitTrue(() -> fleet.lateBound() == 1, "refused-second held");
            drainAll(fleet, true);
            awaitTrue(fleet::waitingForAWorker, "the fleet waits: nothing left to run but refused-second");
            assertThat(fleet.selector().failQueued("the selector stops")).isEqualTo(1);
            drainAll(fleet, false); // the fleet goes on and delivers the refusal
            awaitTrue(fleet::done, "the run ended");
            assertThat(fleet.failure()).isNull();
            assertThat(fleet.lateBoundRefused()).isEqualTo(1);
            assertThat(fleet.routed()).isEqualTo(2);
            assertThat(fleet.finished()).isEqualTo(2);
            assertThat(fleet.failed()).as("refused before it was routed: no failed route").isZero();
            assertThat(fleet.inFlight()).isZero();
        }
    }

    private static void drainAll(LiveFleet fleet, boolean draining) {
        for (int w = 0; w < fleet.selector().registry().size(); w++) {
            fleet.selector().setDraining(w, draining);
        }
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(condition.getAsBoolean()).as(what).isTrue();
    }

    /** The published telemetry adds up to StepTimeModel's counts, and the fitting job's priors take every sample. */
    @Test
    void publishedTelemetryCarriesTheEnginesBusyCountersForTheFittingJobsPriors() throws Exception {
        // Two requests a second apart on one worker: each a pure 49-token prefill step (its first token) and 9 decode
        // steps alone, at ⌈(49 + k)/16⌉ of the 100 HBM blocks for decode step k.
        EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(16).hbmCapacityTokens(1600).cpuCapacityTokens(0)
                .build();
        RequestFactory f = new RequestFactory(cfg.model(), 16);
        List<SimRequest> requests = List.of(
                f.request("b1", 0, 49, ids(40), 10, 10, null),
                f.request("b2", 1_000_000, 49, ids(50), 10, 10, null));
        String scope = "busy-" + UUID.randomUUID(); // other tests' telemetry on the topic is skipped by scope
        try (FleetPublisher publisher = new FleetPublisher(kafka.bootstrapServers(), 1, cfg.model())) {
            LiveFleet fleet = new LiveFleet(cfg, requests, 100, scope, new ParameterStore(ParameterSet.defaults(1)),
                    null, publisher, 1).start();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!fleet.done() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(fleet.done()).as("the live run ended").isTrue();
            assertThat(fleet.failure()).isNull();
        }
        long prefillBusy = 2 * io.tierroute.sim.engine.StepTimeModel.stepMicros(49, 0, 0);
        long decodeBusy = 0;
        for (int k = 1; k <= 9; k++) {
            decodeBusy += 2 * io.tierroute.sim.engine.StepTimeModel.stepMicros(0, 1, ((49 + k + 15) / 16) / 100.0);
        }

        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrapServers());
        p.put("group.id", "live-fleet-test-" + UUID.randomUUID());
        p.put("auto.offset.reset", "earliest");
        List<io.tierroute.schemas.avro.EngineTelemetry> samples = new ArrayList<>();
        long[] sums = new long[4];
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(Topics.TELEMETRY));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (sums[2] < 18 && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    var t = Codecs.ENGINE_TELEMETRY.decode(r.value());
                    if (t.getScope().toString().equals(scope)) {
                        samples.add(t);
                        sums[0] += t.getPrefillTokens();
                        sums[1] += t.getPrefillBusyUs();
                        sums[2] += t.getDecodeSteps();
                        sums[3] += t.getDecodeBusyUs();
                    }
                }
            }
        }
        assertThat(sums).containsExactly(98, prefillBusy, 18, decodeBusy);

        // The fitting job's cold-start priors accept every sample and read the engine's prices from them.
        samples.sort(java.util.Comparator.comparingLong(io.tierroute.schemas.avro.EngineTelemetry::getTimestampMs));
        var priors = new io.tierroute.fitter.prior.TelemetryPriors(io.tierroute.fitter.prior.PriorConfig.defaults());
        for (var t : samples) {
            assertThat(priors.update(t)).isEqualTo(io.tierroute.fitter.prior.PriorOutcome.ACCEPTED);
        }
        var prior = priors.prior(new io.tierroute.fitter.prior.PoolKey("fleet-sim", "sim")).orElseThrow();
        assertThat(prior.alphaP().orElseThrow().value()).isCloseTo(prefillBusy / 98.0, org.assertj.core.data.Offset.offset(1e-3));
        assertThat(prior.decodeStepUs().orElseThrow().value()).isCloseTo(decodeBusy / 18.0, org.assertj.core.data.Offset.offset(1.0));
    }

    /**
     * A worker's KV batches are numbered from 0, as KvEventBatch.sequence says: a restarted fleet starts at 0 again,
     * which the selector's consumer reads as a restart (from 1 it saw a gap and logged lost events).
     */
    @Test
    void aWorkersKvBatchesAreNumberedFromZero() throws Exception {
        String model = "sequence-test-" + UUID.randomUUID(); // other tests' batches on the topic are skipped by model
        try (FleetPublisher publisher = new FleetPublisher(kafka.bootstrapServers(), 1, model)) {
            for (long h = 1; h <= 3; h++) {
                publisher.kv(new io.tierroute.selector.protocol.KvEvent.Stored(0,
                        io.tierroute.selector.protocol.Tier.HBM, false, 0, new long[] {h}), h);
                publisher.flushKv();
            }
        }
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrapServers());
        p.put("group.id", "live-fleet-test-" + UUID.randomUUID());
        p.put("auto.offset.reset", "earliest");
        List<Long> sequences = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(Topics.KV_EVENTS));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (sequences.size() < 3 && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    var batch = Codecs.KV_EVENT_BATCH.decode(r.value());
                    if (batch.getModel().toString().equals(model)) {
                        sequences.add(batch.getSequence());
                    }
                }
            }
        }
        assertThat(sequences).containsExactly(0L, 1L, 2L);
    }

    /** The completion logs of {@code requests} (other tests' logs on the topic are skipped). */
    private static Map<String, CompletionLog> completions(List<SimRequest> requests) {
        java.util.Set<String> wanted = new java.util.HashSet<>();
        requests.forEach(r -> wanted.add(r.id()));
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrapServers());
        p.put("group.id", "live-fleet-test-" + UUID.randomUUID());
        p.put("auto.offset.reset", "earliest");
        Map<String, CompletionLog> out = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(Topics.COMPLETIONS));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (out.size() < wanted.size() && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    CompletionLog log = Codecs.COMPLETION_LOG.decode(r.value());
                    if (wanted.contains(log.getRequestId().toString())) {
                        out.put(log.getRequestId().toString(), log);
                    }
                }
            }
        }
        return out;
    }
}
