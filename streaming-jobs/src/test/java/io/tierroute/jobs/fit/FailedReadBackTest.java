package io.tierroute.jobs.fit;

import static io.tierroute.jobs.fit.FitHarness.TICK;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.jobs.JobSettings;
import io.tierroute.jobs.PublishedParams;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

/**
 * A PIN of a version the history no longer keeps whose read back from the params topic fails (here the consumer's
 * bootstrap address is malformed, so every read throws at once): the scope publishes nothing, as while a read is under way, rather than gate
 * its candidates against nothing with DESIGN's defaults, which the first accepted snapshot after the UNPIN then made
 * live (or which, kept as history, became the UNPIN's parent). The held ticks are counted.
 */
class FailedReadBackTest {
    private static final long START = 1_700_000_000_000L;

    @Test
    void aFailedReadHoldsPublicationUnderThePinAndAfterTheUnpin() throws Exception {
        var h = unreadableTopic(FitHarness.settings().set("history-versions", 2).build());
        SplittableRandom rnd = new SplittableRandom(11);
        long now = 0;
        long eventTime = START;
        h.setProcessingTime(now);
        for (int v = 1; v <= 4; v++) {
            for (int i = 0; i < (v == 1 ? 400 : 20); i++) {
                h.processElement1(new StreamRecord<>(ScopeInput.of(FitHarness.row("default", eventTime += 10, rnd))));
            }
            h.setProcessingTime(now += TICK);
        }
        List<ParameterSnapshot> before = h.extractOutputValues();
        assertThat(before).hasSize(4).allMatch(s -> s.getStatus() == SnapshotStatus.ACCEPTED);

        ScopeFitFunction f = (ScopeFitFunction) ((KeyedCoProcessOperator<?, ?, ?, ?>) h.getOperator()).getUserFunction();
        h.processElement2(new StreamRecord<>(control(ControlAction.PIN, 1, 1))); // trimmed: two versions kept
        int ticks = 0;
        long deadline = System.nanoTime() + 30_000_000_000L;
        // until the read (on its own thread) has failed, then ten ticks more
        for (int failedTicks = 0; failedTicks < 10; ticks++) {
            h.processElement1(new StreamRecord<>(ScopeInput.of(FitHarness.row("default", eventTime += 10, rnd))));
            h.setProcessingTime(now += TICK);
            if (f.pinnedLookups().reading("default", 1)) {
                assertThat(System.nanoTime()).as("the read fails within 30 s").isLessThan(deadline);
                Thread.sleep(20);
            } else {
                failedTicks++;
            }
        }
        assertThat(f.pinnedLookups().foundNothing("default", 1)).as("failed, not found missing").isFalse();
        h.processElement2(new StreamRecord<>(control(ControlAction.UNPIN, 1, 2)));
        for (int tick = 0; tick < 10; tick++, ticks++) {
            h.processElement1(new StreamRecord<>(ScopeInput.of(FitHarness.row("default", eventTime += 10, rnd))));
            h.setProcessingTime(now += TICK);
        }
        List<ParameterSnapshot> after = h.extractOutputValues().subList(4, h.extractOutputValues().size());
        assertThat(after).as("nothing gated against nothing (parent null) or against such a snapshot, under the pin "
            + "or after the unpin").isEmpty();
        assertThat(f.publishesHeldCount()).as("every tick held").isEqualTo(ticks);
        h.close();
    }

    /**
     * An UNPIN of a pin whose version does not exist yet (above the scope's newest) is on no topic: no read-back is
     * started for it and nothing is held, even where the topic cannot be read.
     */
    @Test
    void anUnpinOfAVersionNotPublishedYetHoldsNothing() throws Exception {
        var h = unreadableTopic(FitHarness.settings().build());
        SplittableRandom rnd = new SplittableRandom(12);
        long now = 0;
        long eventTime = START;
        h.setProcessingTime(now);
        for (int i = 0; i < 400; i++) {
            h.processElement1(new StreamRecord<>(ScopeInput.of(FitHarness.row("default", eventTime += 10, rnd))));
        }
        h.setProcessingTime(now += TICK);
        assertThat(h.extractOutputValues()).hasSize(1);
        ScopeFitFunction f = (ScopeFitFunction) ((KeyedCoProcessOperator<?, ?, ?, ?>) h.getOperator()).getUserFunction();
        h.processElement2(new StreamRecord<>(control(ControlAction.PIN, 9, 1)));
        h.processElement2(new StreamRecord<>(control(ControlAction.UNPIN, 9, 2)));
        for (int tick = 0; tick < 3; tick++) {
            h.processElement1(new StreamRecord<>(ScopeInput.of(FitHarness.row("default", eventTime += 10, rnd))));
            h.setProcessingTime(now += TICK);
        }
        assertThat(f.pinnedLookups().reading("default", 9)).as("no read of a version on no topic").isFalse();
        assertThat(f.publishesHeldCount()).isZero();
        assertThat(h.extractOutputValues()).as("the scope goes on publishing").hasSizeGreaterThan(1);
        h.close();
    }

    /**
     * The fitting function, opened, with a params topic it cannot read: the consumer's bootstrap address is malformed,
     * so every read-back throws at once.
     */
    private static KeyedTwoInputStreamOperatorTestHarness<String, ScopeInput, SnapshotControl, ParameterSnapshot>
            unreadableTopic(JobSettings settings) throws Exception {
        PublishedParams unreadable = new PublishedParams(Map.of(), Map.of(), Map.of(), Map.of(
            "bootstrap.servers", "no-port-given",
            "key.deserializer", ByteArrayDeserializer.class.getName(),
            "value.deserializer", ByteArrayDeserializer.class.getName()));
        var h = new KeyedTwoInputStreamOperatorTestHarness<>(
            new KeyedCoProcessOperator<>(new ScopeFitFunction(settings, unreadable)),
            new ScopeFitFunctionTest.InputScope(), new ScopeFitFunctionTest.ControlScope(), Types.STRING);
        h.setup();
        h.open();
        return h;
    }

    private static SnapshotControl control(ControlAction a, long version, long sequence) {
        return FitHarness.control("default", a, version, sequence, 0);
    }
}
