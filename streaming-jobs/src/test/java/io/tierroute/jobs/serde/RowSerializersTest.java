package io.tierroute.jobs.serde;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.jobs.fit.ScopeInput;
import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;
import io.tierroute.jobs.ingest.TelemetrySample;
import io.tierroute.jobs.join.JoinedRow;
import io.tierroute.jobs.join.PendingJoin;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * Every public field of every row class survives its serializer and its copy — filled by reflection, so a
 * field added to a row but not to {@link RowFields} fails here — and Flink picks the serializers up
 * through the classes' {@code @TypeInfo}.
 */
class RowSerializersTest {

    @Test
    void everyFieldSurvivesSerializationAndCopy() throws Exception {
        for (Class<?> type : List.of(DecisionRow.class, CompletionRow.class, JoinedRow.class, TelemetrySample.class)) {
            for (boolean nulls : new boolean[] {false, true}) {
                Object row = filled(type, nulls);
                TypeSerializer<Object> s = serializer(type);
                assertSameFields(roundTrip(s, row), row);
                assertSameFields(s.copy(row), row);
            }
        }
    }

    @Test
    void aFittingInputKeepsWhichRowItCarries() throws Exception {
        TypeSerializer<Object> s = serializer(ScopeInput.class);
        ScopeInput t = ScopeInput.of((TelemetrySample) filled(TelemetrySample.class, false));
        ScopeInput j = ScopeInput.of((JoinedRow) filled(JoinedRow.class, false));
        ScopeInput t2 = (ScopeInput) roundTrip(s, t);
        ScopeInput j2 = (ScopeInput) roundTrip(s, j);
        assertThat(t2.joined).isNull();
        assertSameFields(t2.telemetry, t.telemetry);
        assertThat(j2.telemetry).isNull();
        assertSameFields(j2.joined, j.joined);
        assertSameFields(((ScopeInput) s.copy(j)).joined, j.joined);
    }

    @Test
    void aWaitingJoinSideKeepsItsRowAndDeadlineAndIsSharedNotCopied() throws Exception {
        TypeSerializer<Object> s = serializer(PendingJoin.class);
        PendingJoin d = new PendingJoin((DecisionRow) filled(DecisionRow.class, false), null, 123_456L, 99L, 1_765_000_000_000L);
        PendingJoin c = new PendingJoin(null, (CompletionRow) filled(CompletionRow.class, true), 654_321L, Long.MIN_VALUE,
            7L);
        PendingJoin d2 = (PendingJoin) roundTrip(s, d);
        PendingJoin c2 = (PendingJoin) roundTrip(s, c);
        assertThat(d2.completion).isNull();
        assertSameFields(d2.decision, d.decision);
        assertThat(d2.deadlineMs).isEqualTo(123_456L);
        assertThat(d2.arrivalWatermark).isEqualTo(99L);
        assertThat(d2.arrivalClockMs).isEqualTo(1_765_000_000_000L);
        assertThat(c2.decision).isNull();
        assertSameFields(c2.completion, c.completion);
        assertThat(c2.deadlineMs).isEqualTo(654_321L);
        assertThat(c2.arrivalWatermark).isEqualTo(Long.MIN_VALUE);
        assertThat(c2.arrivalClockMs).isEqualTo(7L);
        // immutable: the heap backend's copy-on-write shares the entry
        assertThat(s.isImmutableType()).isTrue();
        assertThat(s.copy(d)).isSameAs(d);
    }

    @Test
    void stringsBeyondWriteUtfsLimitSurviveAndShortOnesKeepTheirBytes() throws Exception {
        // writeUTF refused more than 65,535 encoded bytes: the task failed at the shuffle, on every restart
        String huge = "é".repeat(40_000) + "𝄞x"; // 80,000+ bytes, a supplementary character included
        DecisionRow d = (DecisionRow) filled(DecisionRow.class, false);
        d.worker = huge;
        d.request.expectedTool = "t".repeat(70_000);
        TelemetrySample t = (TelemetrySample) filled(TelemetrySample.class, false);
        t.hardwarePool = huge;
        assertSameFields(roundTrip(serializer(DecisionRow.class), d), d);
        assertSameFields(roundTrip(serializer(TelemetrySample.class), t), t);

        // a short string is written as before (tag 1 = writeBoolean(true), then writeUTF): older rows read unchanged
        CompletionRow c = (CompletionRow) filled(CompletionRow.class, false);
        DataOutputSerializer out = new DataOutputSerializer(64);
        RowFields.writeCompletion(c, out, RowFields.LAYOUT);
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        assertThat(in.readBoolean()).isTrue();
        assertThat(in.readUTF()).isEqualTo(c.requestId);
    }

    @SuppressWarnings("unchecked")
    private static TypeSerializer<Object> serializer(Class<?> type) {
        TypeInformation<?> info = TypeInformation.of(type);
        assertThat(info).as("type information of %s", type.getSimpleName()).isInstanceOf(RowTypeInfo.class);
        return (TypeSerializer<Object>) info.createSerializer(new SerializerConfigImpl());
    }

    static Object roundTrip(TypeSerializer<Object> s, Object row) throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(64);
        s.serialize(row, out);
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        Object back = s.deserialize(in);
        assertThat(in.available()).as("bytes left").isZero();
        return back;
    }

    /**
     * A row whose every public field holds a distinct non-default value (boxed and string fields null if asked),
     * the fields of its parts (CostRegressors, OutputFeatures, AdmissionInputs) included.
     */
    static Object filled(Class<?> type, boolean nulls) throws Exception {
        Object row = type.getDeclaredConstructor().newInstance();
        fill(row, nulls, new int[] {1});
        return row;
    }

    /** Whether a field holds one of a row's parts, filled and compared field by field. */
    static boolean isPart(Field f) {
        return Modifier.isFinal(f.getModifiers()) && f.getType().getPackageName().startsWith("io.tierroute.jobs");
    }

    private static void fill(Object row, boolean nulls, int[] counter) throws Exception {
        for (Field f : row.getClass().getFields()) {
            if (Modifier.isStatic(f.getModifiers())) {
                continue;
            }
            if (isPart(f)) {
                fill(f.get(row), nulls, counter);
                continue;
            }
            Class<?> t = f.getType();
            int i = ++counter[0];
            Object v;
            if (t == long.class) {
                v = 1000L + i;
            } else if (t == int.class) {
                v = 100 + i;
            } else if (t == double.class) {
                v = i + 0.25;
            } else if (t == boolean.class) {
                v = true;
            } else if (t == String.class) {
                v = nulls ? null : "s" + i + "é";
            } else if (t == Integer.class) {
                v = nulls ? null : Integer.valueOf(200 + i);
            } else if (t == Long.class) {
                v = nulls ? null : Long.valueOf(3000L + i);
            } else if (t == String[].class) {
                v = nulls ? null : new String[] {"CPU", "NVME"};
            } else if (t == long[].class) {
                v = nulls ? null : new long[] {7L + i, 9L + i};
            } else {
                throw new AssertionError("no test value for field " + f.getName() + " of type " + t);
            }
            f.set(row, v);
        }
    }

    static void assertSameFields(Object actual, Object expected) throws Exception {
        assertThat(actual).isNotSameAs(expected);
        for (Field f : expected.getClass().getFields()) {
            if (Modifier.isStatic(f.getModifiers())) {
                continue;
            }
            if (isPart(f)) {
                assertSameFields(f.get(actual), f.get(expected));
            } else {
                assertThat(Arrays.deepEquals(new Object[] {f.get(actual)}, new Object[] {f.get(expected)}))
                    .as("%s.%s: %s vs %s", expected.getClass().getSimpleName(), f.getName(), f.get(actual),
                        f.get(expected))
                    .isTrue();
            }
        }
    }
}
