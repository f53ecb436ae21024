package io.tierroute.jobs.serde;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.jobs.fit.ScopeInput;
import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;
import io.tierroute.jobs.join.JoinedRow;
import io.tierroute.jobs.join.PendingJoin;
import io.tierroute.jobs.join.RequestJoinFunctionAccess;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.api.common.typeutils.base.MapSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * State written by the version before the admission wait's fields (commit 09572d4: row serializers with
 * {@code SimpleTypeSerializerSnapshot}s, layout 1) restores into this one: the old serializer snapshot, as Flink
 * wrote it into the checkpoint, reads into the same-named versioned snapshot; its restore serializer reads rows
 * written by a verbatim copy of the old writer ({@link LayoutBeforeKvWaitWriter}); the new serializer answers
 * {@code compatibleAfterMigration}, also inside the list and map states that hold the rows.
 */
class RowStateMigrationTest {
    private static final Set<String> DECISION_KV_FIELDS = Set.of("kvUsedTokens", "predictedOutputTokens",
        "missingKvTokens", "inFlight", "predictedPrefillUs", "predictedQueueUs", "lastWorkerHeldTokens");
    private static final Set<String> COMPLETION_KV_FIELDS = Set.of("decodeUs", "queueWaitUs", "prefillUs");
    private static final Set<String> JOINED_KV_FIELDS = Set.of("kvUsedTokens", "predictedOutputTokens",
        "missingKvTokens", "inFlight", "predictedPrefillUs", "predictedQueueUs", "decodeUs", "queueWaitUs",
        "prefillUs");

    /** What the previous version's snapshot classes (SimpleTypeSerializerSnapshot) wrote: stands in for their class. */
    public static final class PreviousSnapshot extends SimpleTypeSerializerSnapshot<JoinedRow> {
        public PreviousSnapshot() {
            super(() -> RowSerializers.Joined.INSTANCE);
        }
    }

    /** The bytes of a snapshot of class {@code name} as a {@code SimpleTypeSerializerSnapshot} wrote them. */
    private static byte[] previousSnapshotBytes(Class<?> name) throws Exception {
        DataOutputSerializer simple = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(simple, new PreviousSnapshot());
        DataInputDeserializer in = new DataInputDeserializer(simple.getCopyOfBuffer());
        assertThat(in.readUTF()).isEqualTo(PreviousSnapshot.class.getName());
        int version = in.readInt();
        assertThat(version).as("SimpleTypeSerializerSnapshot's version").isEqualTo(3);
        assertThat(in.available()).as("its payload").isZero();
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeUTF(name.getName());
        out.writeInt(version);
        return out.getCopyOfBuffer();
    }

    @SuppressWarnings("unchecked")
    private static <T> TypeSerializerSnapshot<T> readSnapshot(byte[] bytes) throws Exception {
        DataInputDeserializer in = new DataInputDeserializer(bytes);
        TypeSerializerSnapshot<T> s = TypeSerializerSnapshot.readVersionedSnapshot(in,
            RowStateMigrationTest.class.getClassLoader());
        assertThat(in.available()).isZero();
        return s;
    }

    private static <T> byte[] snapshotBytes(TypeSerializerSnapshot<T> s) throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, s);
        return out.getCopyOfBuffer();
    }

    @FunctionalInterface
    interface OldWriter {
        void write(DataOutputSerializer out) throws Exception;
    }

    /** Restores {@code old}-written bytes with the old snapshot's serializer; checks compatibility and re-writing. */
    @SuppressWarnings("unchecked")
    private static <T> T restoreAndMigrate(Class<?> snapshotClass, TypeSerializer<T> current, OldWriter old)
            throws Exception {
        TypeSerializerSnapshot<T> previous = readSnapshot(previousSnapshotBytes(snapshotClass));
        assertThat(previous).isInstanceOf(snapshotClass);
        TypeSerializerSchemaCompatibility<T> compat = current.snapshotConfiguration().resolveSchemaCompatibility(previous);
        assertThat(compat.isCompatibleAfterMigration()).as("%s: %s", snapshotClass.getSimpleName(), compat).isTrue();

        DataOutputSerializer bytes = new DataOutputSerializer(256);
        old.write(bytes);
        DataInputDeserializer in = new DataInputDeserializer(bytes.getCopyOfBuffer());
        T restored = previous.restoreSerializer().deserialize(in);
        assertThat(in.available()).as("old bytes all read").isZero();
        // the migration: the backend writes the restored value with the current serializer
        return (T) RowSerializersTest.roundTrip((TypeSerializer<Object>) current, restored);
    }

    @Test
    void rowsOfThePreviousVersionRestoreWithTheNewFieldsUnknown() throws Exception {
        DecisionRow d = (DecisionRow) RowSerializersTest.filled(DecisionRow.class, false);
        assertOldFieldsAndUnknown(restoreAndMigrate(RowSerializers.DecisionSnapshot.class,
            RowSerializers.Decision.INSTANCE, out -> LayoutBeforeKvWaitWriter.writeDecision(d, out)), d,
            DECISION_KV_FIELDS);

        CompletionRow c = (CompletionRow) RowSerializersTest.filled(CompletionRow.class, true);
        assertOldFieldsAndUnknown(restoreAndMigrate(RowSerializers.CompletionSnapshot.class,
            RowSerializers.Completion.INSTANCE, out -> LayoutBeforeKvWaitWriter.writeCompletion(c, out)), c,
            COMPLETION_KV_FIELDS);

        JoinedRow j = (JoinedRow) RowSerializersTest.filled(JoinedRow.class, false);
        JoinedRow restored = restoreAndMigrate(RowSerializers.JoinedSnapshot.class, RowSerializers.Joined.INSTANCE,
            out -> LayoutBeforeKvWaitWriter.writeJoined(j, out));
        assertOldFieldsAndUnknown(restored, j, JOINED_KV_FIELDS);
        assertThat(restored.kvWait()).as("an old row says nothing about the admission wait").isNull();
        assertThat(restored.latency()).as("but still feeds the regression").isEqualTo(j.latency());

        ScopeInput input = restoreAndMigrate(RowSerializers.InputSnapshot.class, RowSerializers.Input.INSTANCE, out -> {
            out.writeByte(1);
            LayoutBeforeKvWaitWriter.writeJoined(j, out);
        });
        assertOldFieldsAndUnknown(input.joined, j, JOINED_KV_FIELDS);

        PendingJoin p = restoreAndMigrate(PendingJoinSerializer.Snapshot.class, PendingJoinSerializer.INSTANCE, out -> {
            out.writeByte(0);
            LayoutBeforeKvWaitWriter.writeDecision(d, out);
            out.writeLong(123_456L);
            out.writeLong(99L);
        });
        assertOldFieldsAndUnknown(p.decision, d, DECISION_KV_FIELDS);
        assertThat(p.deadlineMs).isEqualTo(123_456L);
        assertThat(p.arrivalWatermark).isEqualTo(99L);
        assertThat(p.arrivalClockMs).isEqualTo(PendingJoin.UNKNOWN_ARRIVAL_CLOCK);
    }

    /**
     * The join's waiting side as the version before the arrival clock wrote it (row layout 2, snapshot version 4): it
     * migrates, its row whole, its arrival clock unknown; the other row serializers stay at layout 2, compatible as is.
     */
    @Test
    void aWaitingSideOfTheVersionBeforeTheArrivalClockMigratesWithTheClockUnknown() throws Exception {
        PendingJoinSerializer previous = PendingJoinSerializer.of(RowFields.LAYOUT_KV_WAIT);
        TypeSerializerSnapshot<PendingJoin> oldSnapshot = readSnapshot(snapshotBytes(previous.snapshotConfiguration()));
        assertThat(oldSnapshot.getCurrentVersion()).isEqualTo(4);
        assertThat(PendingJoinSerializer.INSTANCE.snapshotConfiguration().resolveSchemaCompatibility(oldSnapshot)
            .isCompatibleAfterMigration()).isTrue();

        CompletionRow c = (CompletionRow) RowSerializersTest.filled(CompletionRow.class, true);
        DataOutputSerializer out = new DataOutputSerializer(256);
        out.writeByte(1);
        RowFields.writeCompletion(c, out, RowFields.LAYOUT_KV_WAIT);
        out.writeLong(654_321L);
        out.writeLong(98L);
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        PendingJoin restored = oldSnapshot.restoreSerializer().deserialize(in);
        assertThat(in.available()).as("old bytes all read").isZero();
        @SuppressWarnings("unchecked")
        PendingJoin migrated = (PendingJoin) RowSerializersTest.roundTrip(
            (TypeSerializer<Object>) (TypeSerializer<?>) PendingJoinSerializer.INSTANCE, restored);
        RowSerializersTest.assertSameFields(migrated.completion, c);
        assertThat(migrated.deadlineMs).isEqualTo(654_321L);
        assertThat(migrated.arrivalWatermark).isEqualTo(98L);
        assertThat(migrated.arrivalClockMs).isEqualTo(PendingJoin.UNKNOWN_ARRIVAL_CLOCK);
    }

    /**
     * A decision waiting in the join, and one in a row serializer's state, as the version before
     * {@code lastWorkerHeldTokens} wrote them (the waiting side at snapshot version 5, rows at 4): both migrate whole,
     * the new field unknown (-1: λ's observation falls back to the return's completion).
     */
    @Test
    void aDecisionOfTheVersionBeforeTheLastWorkersHoldingMigratesWithItUnknown() throws Exception {
        DecisionRow d = (DecisionRow) RowSerializersTest.filled(DecisionRow.class, false);
        assertThat(d.lastWorkerHeldTokens).as("filled").isNotEqualTo(-1L);

        PendingJoinSerializer clock = PendingJoinSerializer.of(RowFields.LAYOUT_JOIN_CLOCK);
        TypeSerializerSnapshot<PendingJoin> oldWaiting = readSnapshot(snapshotBytes(clock.snapshotConfiguration()));
        assertThat(oldWaiting.getCurrentVersion()).isEqualTo(5);
        assertThat(PendingJoinSerializer.INSTANCE.snapshotConfiguration().resolveSchemaCompatibility(oldWaiting)
            .isCompatibleAfterMigration()).isTrue();
        DataOutputSerializer out = new DataOutputSerializer(256);
        out.writeByte(0);
        RowFields.writeDecision(d, out, RowFields.LAYOUT_KV_WAIT);
        out.writeLong(777L);
        out.writeLong(55L);
        out.writeLong(1_700_000_000_000L);
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        PendingJoin restored = oldWaiting.restoreSerializer().deserialize(in);
        assertThat(in.available()).as("old bytes all read").isZero();
        @SuppressWarnings("unchecked")
        PendingJoin migrated = (PendingJoin) RowSerializersTest.roundTrip(
            (TypeSerializer<Object>) (TypeSerializer<?>) PendingJoinSerializer.INSTANCE, restored);
        assertOldFieldsAndUnknown(migrated.decision, d, Set.of("lastWorkerHeldTokens"));
        assertThat(migrated.decision.lastWorkerHeldTokens).isEqualTo(-1L);
        assertThat(migrated.arrivalClockMs).isEqualTo(1_700_000_000_000L);

        TypeSerializerSnapshot<DecisionRow> oldRows = readSnapshot(snapshotBytes(
            RowSerializers.Decision.of(RowFields.LAYOUT_KV_WAIT).snapshotConfiguration()));
        assertThat(oldRows.getCurrentVersion()).isEqualTo(4);
        assertThat(RowSerializers.Decision.INSTANCE.snapshotConfiguration().resolveSchemaCompatibility(oldRows)
            .isCompatibleAfterMigration()).isTrue();
        DataOutputSerializer row = new DataOutputSerializer(256);
        RowFields.writeDecision(d, row, RowFields.LAYOUT_KV_WAIT);
        DecisionRow restoredRow = oldRows.restoreSerializer().deserialize(new DataInputDeserializer(row.getCopyOfBuffer()));
        assertOldFieldsAndUnknown(restoredRow, d, Set.of("lastWorkerHeldTokens"));
        assertThat(RowSerializers.Completion.INSTANCE.snapshotConfiguration().getCurrentVersion())
            .as("one layout sequence for every row serializer").isEqualTo(6);
    }

    @Test
    void theOldLayoutSerializersWriteWhatThePreviousVersionWrote() throws Exception {
        DecisionRow d = (DecisionRow) RowSerializersTest.filled(DecisionRow.class, false);
        CompletionRow c = (CompletionRow) RowSerializersTest.filled(CompletionRow.class, true);
        JoinedRow j = (JoinedRow) RowSerializersTest.filled(JoinedRow.class, false);
        int old = RowFields.LAYOUT_BEFORE_KV_WAIT;
        assertThat(bytes(out -> RowSerializers.Decision.of(old).serialize(d, out)))
            .isEqualTo(bytes(out -> LayoutBeforeKvWaitWriter.writeDecision(d, out)));
        assertThat(bytes(out -> RowSerializers.Completion.of(old).serialize(c, out)))
            .isEqualTo(bytes(out -> LayoutBeforeKvWaitWriter.writeCompletion(c, out)));
        assertThat(bytes(out -> RowSerializers.Joined.of(old).serialize(j, out)))
            .isEqualTo(bytes(out -> LayoutBeforeKvWaitWriter.writeJoined(j, out)));
        assertThat(snapshotBytes(RowSerializers.Joined.of(old).snapshotConfiguration()))
            .as("the snapshot as SimpleTypeSerializerSnapshot wrote it")
            .isEqualTo(previousSnapshotBytes(RowSerializers.JoinedSnapshot.class));
    }

    private static byte[] bytes(OldWriter w) throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(256);
        w.write(out);
        return out.getCopyOfBuffer();
    }

    @Test
    void aRestoredDecisionJoinsIntoARowTheFitSkips() throws Exception {
        DecisionRow d = (DecisionRow) RowSerializersTest.filled(DecisionRow.class, false);
        DataOutputSerializer out = new DataOutputSerializer(256);
        LayoutBeforeKvWaitWriter.writeDecision(d, out);
        DecisionRow old = RowSerializers.Decision.of(RowFields.LAYOUT_BEFORE_KV_WAIT)
            .deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
        CompletionRow c = (CompletionRow) RowSerializersTest.filled(CompletionRow.class, false);
        c.worker = old.worker;
        c.ok = true;
        assertThat(RequestJoinFunctionAccess.join(old, c).kvWait()).isNull();
        assertThat(RequestJoinFunctionAccess.join(d, c).kvWait()).isNotNull();
    }

    @Test
    void listAndMapStatesOfOldRowsMigrate() throws Exception {
        JoinedRow j = (JoinedRow) RowSerializersTest.filled(JoinedRow.class, true);
        // The list state's snapshot as the previous version wrote it: the nested row snapshot at version 3.
        TypeSerializerSnapshot<List<JoinedRow>> oldList = readSnapshot(snapshotBytes(
            new ListSerializer<>(RowSerializers.Joined.of(RowFields.LAYOUT_BEFORE_KV_WAIT)).snapshotConfiguration()));
        assertThat(new ListSerializer<>(RowSerializers.Joined.INSTANCE).snapshotConfiguration()
            .resolveSchemaCompatibility(oldList).isCompatibleAfterMigration()).isTrue();
        DataOutputSerializer out = new DataOutputSerializer(512);
        out.writeInt(2);
        LayoutBeforeKvWaitWriter.writeJoined(j, out);
        LayoutBeforeKvWaitWriter.writeJoined(j, out);
        List<JoinedRow> rows = oldList.restoreSerializer().deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
        assertThat(rows).hasSize(2);
        assertOldFieldsAndUnknown(rows.get(1), j, JOINED_KV_FIELDS);

        TypeSerializerSnapshot<Map<String, PendingJoin>> oldMap = readSnapshot(snapshotBytes(new MapSerializer<>(
            StringSerializer.INSTANCE, PendingJoinSerializer.of(RowFields.LAYOUT_BEFORE_KV_WAIT)).snapshotConfiguration()));
        assertThat(new MapSerializer<>(StringSerializer.INSTANCE, PendingJoinSerializer.INSTANCE).snapshotConfiguration()
            .resolveSchemaCompatibility(oldMap).isCompatibleAfterMigration()).isTrue();
    }

    @Test
    void theCurrentSnapshotIsCompatibleAsIsAndNewerLayoutsAreRefused() throws Exception {
        for (TypeSerializer<?> s : List.of(RowSerializers.Decision.INSTANCE, RowSerializers.Completion.INSTANCE,
                RowSerializers.Joined.INSTANCE, RowSerializers.Input.INSTANCE, PendingJoinSerializer.INSTANCE)) {
            assertCompatibleAsIs(s);
        }
        TypeSerializerSnapshot<JoinedRow> current = readSnapshot(snapshotBytes(
            RowSerializers.Joined.INSTANCE.snapshotConfiguration()));
        assertThat(RowSerializers.Joined.of(RowFields.LAYOUT_BEFORE_KV_WAIT).snapshotConfiguration()
            .resolveSchemaCompatibility(current).isIncompatible()).as("a downgrade").isTrue();
    }

    /** Every layout a serializer is built in writes a snapshot that reads back into a serializer of that layout. */
    @Test
    void everyLayoutsSnapshotReadsBackIntoItsOwnLayout() throws Exception {
        for (int layout : new int[] {RowFields.LAYOUT_BEFORE_KV_WAIT, RowFields.LAYOUT_KV_WAIT,
                RowFields.LAYOUT_LAST_WORKER_HELD}) {
            for (TypeSerializer<?> s : List.of(RowSerializers.Decision.of(layout), RowSerializers.Completion.of(layout),
                    RowSerializers.Joined.of(layout), RowSerializers.Input.of(layout), PendingJoinSerializer.of(layout))) {
                assertThat(readSnapshot(snapshotBytes(s.snapshotConfiguration())).restoreSerializer()).as("layout %d", layout)
                    .isEqualTo(s);
            }
        }
        PendingJoinSerializer clock = PendingJoinSerializer.of(RowFields.LAYOUT_JOIN_CLOCK);
        assertThat(readSnapshot(snapshotBytes(clock.snapshotConfiguration())).restoreSerializer()).isEqualTo(clock);
        assertThat(PendingJoinSerializer.of(RowFields.LAYOUT)).isSameAs(PendingJoinSerializer.INSTANCE);
    }

    private static <T> void assertCompatibleAsIs(TypeSerializer<T> s) throws Exception {
        TypeSerializerSnapshot<T> back = readSnapshot(snapshotBytes(s.snapshotConfiguration()));
        assertThat(back.restoreSerializer()).isEqualTo(s);
        assertThat(s.snapshotConfiguration().resolveSchemaCompatibility(back).isCompatibleAsIs()).isTrue();
    }

    private static void assertOldFieldsAndUnknown(Object restored, Object original, Set<String> newFields)
            throws Exception {
        for (Field f : original.getClass().getFields()) {
            if (Modifier.isStatic(f.getModifiers())) {
                continue;
            }
            Object v = f.get(restored);
            if (RowSerializersTest.isPart(f)) {
                assertOldFieldsAndUnknown(v, f.get(original), newFields);
            } else if (newFields.contains(f.getName())) {
                assertThat(v).as("%s unknown", f.getName()).isIn(Double.NaN, -1, -1L);
            } else {
                assertThat(v).as(f.getName()).isEqualTo(f.get(original));
            }
        }
    }
}
