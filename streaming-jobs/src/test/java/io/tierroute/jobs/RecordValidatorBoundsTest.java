package io.tierroute.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.jobs.ingest.RecordValidator;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.avro.CompletionLog;
import io.tierroute.schemas.avro.EngineTelemetry;
import io.tierroute.schemas.avro.RoutingDecision;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Magnitudes a record may be well-formed in but that the job cannot carry: identifiers past the cap (a string
 * beyond 65,535 UTF-8 bytes used to fail the task at its first shuffle, forever) and idle times no decay fit can use.
 * Each is a dead letter whose reason names the field.
 */
class RecordValidatorBoundsTest {
    private static final int CAP = RecordValidator.MAX_IDENTIFIER_CHARS;

    private final RecordValidator validator = new RecordValidator(3_600_000);
    private final long now = System.currentTimeMillis();
    private final Workload workload = new Workload(1, "default", now - 60_000, 0);

    private String decision(Consumer<RoutingDecision> change) {
        RoutingDecision d = workload.decision("r1", "w1", now - 1_000, 2000, 0, 2e6, 0, 0, 0, 0, 0, null, 0, 2000);
        change.accept(d);
        return validator.decision(d, now);
    }

    private String completion(Consumer<CompletionLog> change) {
        CompletionLog c = workload.completion("r1", "w1", now - 2_000, 90_000, 2000, 0);
        change.accept(c);
        return validator.completion(c, now);
    }

    private String telemetry(Consumer<EngineTelemetry> change) {
        EngineTelemetry t = Codecs.ENGINE_TELEMETRY.decode(workload.telemetry(1).get(0).value());
        t.setTimestampMs(now - 1_000);
        change.accept(t);
        return validator.telemetry(t, now);
    }

    @Test
    void identifiersLongerThanTheCapAreDeadLetteredNamingFieldAndLength() {
        String atCap = "w".repeat(CAP);
        String huge = "é".repeat(40_000); // 80,000 UTF-8 bytes: past writeUTF's 65,535
        String tooLong = "w".repeat(CAP + 1);
        assertThat(decision(d -> {})).isNull();
        assertThat(decision(d -> d.setChosenWorker(atCap))).isNull();
        assertThat(decision(d -> d.setChosenWorker(huge))).isEqualTo("chosenWorker is 40000 characters long, at most 256");
        assertThat(decision(d -> d.setRequestId(tooLong))).isEqualTo("requestId is 257 characters long, at most 256");
        assertThat(decision(d -> d.setScope(huge))).startsWith("scope is 40000 characters long");
        assertThat(decision(d -> d.getRequest().setModel(huge))).startsWith("request.model is 40000");
        assertThat(decision(d -> d.getRequest().setLora(huge))).startsWith("request.lora is 40000");
        assertThat(decision(d -> d.getRequest().setExpectedTool(huge))).startsWith("request.expectedTool is 40000");
        assertThat(decision(d -> d.getRequest().setLora(null))).as("optional: null is fine").isNull();

        assertThat(completion(c -> {})).isNull();
        assertThat(completion(c -> c.setRequestId(huge))).startsWith("requestId is 40000");
        assertThat(completion(c -> c.setWorker(tooLong))).startsWith("worker is 257");
        assertThat(completion(c -> c.setScope(huge))).startsWith("scope is 40000");

        assertThat(telemetry(t -> {})).isNull();
        assertThat(telemetry(t -> t.setWorker(huge))).startsWith("worker is 40000");
        assertThat(telemetry(t -> t.setScope(huge))).startsWith("scope is 40000");
        assertThat(telemetry(t -> t.setEngineType(huge))).startsWith("engineType is 40000");
        assertThat(telemetry(t -> t.setHardwarePool(tooLong))).startsWith("hardwarePool is 257");
    }

    /**
     * A link moving more than 10 TB/s (the gate's BW_t bound) is a running total or a unit error: as a tier peak it got
     * every snapshot of the scope rejected while the link misreported (found in review).
     */
    @Test
    void aLinkFasterThanAnyLinkIsDeadLetteredNamingItsRate() {
        assertThat(telemetry(t -> t.getLinks().get(0).setBytesMoved(10_000_000_000_000L))).as("10 TB in 1 s: the bound")
            .isNull();
        assertThat(telemetry(t -> t.getLinks().get(0).setBytesMoved(1_000_000_000_000_000L)))
            .isEqualTo("links[CPU].bytesMoved 1000000000000000 in 1000 ms is 1.00e+15 bytes/s, faster than any link "
                + "(1e+13): the bytes of this interval, not a running total?");
    }

    /**
     * A completion's phases, each bounded: Long.MAX_VALUE twice plus 1002 µs summed to a realised time to first token
     * of 1,000 µs, a plausible figure the latency fit would have taken.
     */
    @Test
    void completionPhasesBeyondHoursAreDeadLetteredSoTheirSumCannotWrapAround() {
        assertThat(completion(c -> {
            c.setQueueWaitUs(Long.MAX_VALUE);
            c.setPrefillUs(Long.MAX_VALUE);
            c.setTierLoadUs(1002);
        })).isEqualTo("queueWaitUs must be in [0, 10000000000] µs, got " + Long.MAX_VALUE);
        assertThat(completion(c -> c.setPrefillUs(10_000_000_001L))).startsWith("prefillUs must be in [0, 10000000000]");
        assertThat(completion(c -> c.setTierLoadUs(Long.MAX_VALUE))).startsWith("tierLoadUs must be in");
        assertThat(completion(c -> c.setDecodeUs(Long.MAX_VALUE))).startsWith("decodeUs must be in");
        assertThat(completion(c -> c.setTtftUs(Long.MAX_VALUE))).startsWith("ttftUs must be in");
        assertThat(completion(c -> c.setPrefillUs(10_000_000_000L))).as("at the bound").isNull();
    }

    /** --scopes: a record of a scope the job does not fit is a dead letter, on every input topic, control included. */
    @Test
    void aScopeOutsideTheFittedOnesIsDeadLettered() {
        RecordValidator only = new RecordValidator(3_600_000, java.util.regex.Pattern.compile("default|chat-[a-z]+"));
        CompletionLog c = workload.completion("r1", "w1", now - 2_000, 90_000, 2000, 0);
        assertThat(only.completion(c, now)).isNull();
        c.setScope("chat-eu");
        assertThat(only.completion(c, now)).as("matched in whole").isNull();
        c.setScope("req-8f3a");
        assertThat(only.completion(c, now))
            .isEqualTo("scope 'req-8f3a' is not one this job fits (--scopes default|chat-[a-z]+)");
        c.setScope("chat-eu2");
        assertThat(only.completion(c, now)).as("a prefix is not a match").startsWith("scope 'chat-eu2' is not");

        RoutingDecision d = workload.decision("r1", "w1", now - 1_000, 2000, 0, 2e6, 0, 0, 0, 0, 0, null, 0, 2000);
        d.setScope("tenant-42");
        assertThat(only.decision(d, now)).startsWith("scope 'tenant-42' is not one this job fits");
        EngineTelemetry t = Codecs.ENGINE_TELEMETRY.decode(workload.telemetry(1).get(0).value());
        t.setTimestampMs(now - 1_000);
        t.setScope("w7");
        assertThat(only.telemetry(t, now)).startsWith("scope 'w7' is not one this job fits");
        io.tierroute.schemas.avro.SnapshotControl pin = io.tierroute.schemas.avro.SnapshotControl.newBuilder()
            .setScope("ghost").setAction(io.tierroute.schemas.avro.ControlAction.PIN).setVersion(3L).setReason("r")
            .setActor("a").setTimestampMs(now).setSequence(1).build();
        assertThat(only.control(pin)).startsWith("scope 'ghost' is not one this job fits");
        pin.setScope("default");
        assertThat(only.control(pin)).isNull();
        assertThat(validator.completion(c, now)).as("without --scopes, any scope").isNull();
    }

    @Test
    void aLongIdleTimeKeepsItsRecordAndANegativeOneIsDeadLettered() {
        // A selector with a long routing.workflowMaxAge sends them on purpose: the record's latency and admission-wait
        // rows still count; the λ fit refuses an idle time over DecayObservation.MAX_IDLE_SECONDS itself (DecayMleTest).
        assertThat(decision(d -> d.getFeatures().setIdleSinceLastStepMs(30 * 24 * 3600 * 1000L))).isNull();
        assertThat(decision(d -> d.getFeatures().setIdleSinceLastStepMs(Long.MAX_VALUE))).isNull();
        assertThat(decision(d -> d.getFeatures().setIdleSinceLastStepMs(-1L)))
            .isEqualTo("features.idleSinceLastStepMs must be >= 0 or null, got -1");
    }

    @Test
    void onlyATierBehindALinkIsCutOff() {
        assertThat(decision(d -> d.getFeatures().setCutOffTier(io.tierroute.schemas.avro.Tier.CPU))).isNull();
        assertThat(decision(d -> d.getFeatures().setCutOffTier(io.tierroute.schemas.avro.Tier.HBM)))
            .isEqualTo("features.cutOffTier: HBM (only a tier loaded over a link is cut off)");
    }

    /** What the previous worker held of the prompt is a part of the prompt: a negative or longer count is no record. */
    @Test
    void thePreviousWorkersHoldingIsWithinThePrompt() {
        int isl = 2000; // decision(...)'s prompt
        assertThat(decision(d -> d.getFeatures().setLastWorkerHeldTokens(null))).isNull();
        assertThat(decision(d -> d.getFeatures().setLastWorkerHeldTokens(0L))).isNull();
        assertThat(decision(d -> d.getFeatures().setLastWorkerHeldTokens((long) isl))).isNull();
        assertThat(decision(d -> d.getFeatures().setLastWorkerHeldTokens(isl + 1L)))
            .isEqualTo("features.lastWorkerHeldTokens must be null or within 0..request.isl (" + isl + "), got " + (isl + 1));
        assertThat(decision(d -> d.getFeatures().setLastWorkerHeldTokens(-1L)))
            .isEqualTo("features.lastWorkerHeldTokens must be null or within 0..request.isl (" + isl + "), got -1");
    }
}
