package io.tierroute.jobs.serde;

import io.tierroute.jobs.fit.ScopeInput;
import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;
import io.tierroute.jobs.ingest.TelemetrySample;
import io.tierroute.jobs.join.JoinedRow;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The serializers of the rows the job shuffles and keeps in state, each with its snapshot (what a
 * checkpoint records about the format; a restore checks it). Chosen by the classes' {@code @TypeInfo}.
 */
public final class RowSerializers {
    private RowSerializers() {}

    public static final class Decision extends RowSerializer<DecisionRow> {
        private static final long serialVersionUID = 1L;
        public static final Decision INSTANCE = new Decision(RowFields.LAYOUT);

        private Decision(int layout) {
            super(layout);
        }

        /** The serializer of a {@link RowFields} layout (older ones restore state of earlier versions). */
        public static Decision of(int layout) {
            return layout == RowFields.LAYOUT ? INSTANCE : new Decision(layout);
        }

        @Override
        void write(DecisionRow row, DataOutputView out) throws IOException {
            RowFields.writeDecision(row, out, layout);
        }

        @Override
        DecisionRow read(DataInputView in) throws IOException {
            return RowFields.readDecision(in, layout);
        }

        @Override
        public DecisionRow createInstance() {
            return new DecisionRow();
        }

        @Override
        public DecisionRow copy(DecisionRow from) {
            return RowFields.copy(from);
        }

        @Override
        public TypeSerializerSnapshot<DecisionRow> snapshotConfiguration() {
            return new DecisionSnapshot().withLayout(layout);
        }
    }

    /** Versioned: the layout changed ({@link RowSerializerSnapshot}); the class name is the one old checkpoints name. */
    public static final class DecisionSnapshot extends RowSerializerSnapshot<DecisionRow> {
        @Override
        TypeSerializer<DecisionRow> serializer(int layout) {
            return Decision.of(layout);
        }
    }

    public static final class Completion extends RowSerializer<CompletionRow> {
        private static final long serialVersionUID = 1L;
        public static final Completion INSTANCE = new Completion(RowFields.LAYOUT);

        private Completion(int layout) {
            super(layout);
        }

        /** The serializer of a {@link RowFields} layout (older ones restore state of earlier versions). */
        public static Completion of(int layout) {
            return layout == RowFields.LAYOUT ? INSTANCE : new Completion(layout);
        }

        @Override
        void write(CompletionRow row, DataOutputView out) throws IOException {
            RowFields.writeCompletion(row, out, layout);
        }

        @Override
        CompletionRow read(DataInputView in) throws IOException {
            return RowFields.readCompletion(in, layout);
        }

        @Override
        public CompletionRow createInstance() {
            return new CompletionRow();
        }

        @Override
        public CompletionRow copy(CompletionRow from) {
            return RowFields.copy(from);
        }

        @Override
        public TypeSerializerSnapshot<CompletionRow> snapshotConfiguration() {
            return new CompletionSnapshot().withLayout(layout);
        }
    }

    /** Versioned: the layout changed ({@link RowSerializerSnapshot}); the class name is the one old checkpoints name. */
    public static final class CompletionSnapshot extends RowSerializerSnapshot<CompletionRow> {
        @Override
        TypeSerializer<CompletionRow> serializer(int layout) {
            return Completion.of(layout);
        }
    }

    public static final class Joined extends RowSerializer<JoinedRow> {
        private static final long serialVersionUID = 1L;
        public static final Joined INSTANCE = new Joined(RowFields.LAYOUT);

        private Joined(int layout) {
            super(layout);
        }

        /** The serializer of a {@link RowFields} layout (older ones restore state of earlier versions). */
        public static Joined of(int layout) {
            return layout == RowFields.LAYOUT ? INSTANCE : new Joined(layout);
        }

        @Override
        void write(JoinedRow row, DataOutputView out) throws IOException {
            RowFields.writeJoined(row, out, layout);
        }

        @Override
        JoinedRow read(DataInputView in) throws IOException {
            return RowFields.readJoined(in, layout);
        }

        @Override
        public JoinedRow createInstance() {
            return new JoinedRow();
        }

        @Override
        public JoinedRow copy(JoinedRow from) {
            return RowFields.copy(from);
        }

        @Override
        public TypeSerializerSnapshot<JoinedRow> snapshotConfiguration() {
            return new JoinedSnapshot().withLayout(layout);
        }
    }

    /** Versioned: the layout changed ({@link RowSerializerSnapshot}); the class name is the one old checkpoints name. */
    public static final class JoinedSnapshot extends RowSerializerSnapshot<JoinedRow> {
        @Override
        TypeSerializer<JoinedRow> serializer(int layout) {
            return Joined.of(layout);
        }
    }

    public static final class Telemetry extends RowSerializer<TelemetrySample> {
        private static final long serialVersionUID = 1L;
        public static final Telemetry INSTANCE = new Telemetry();

        @Override
        void write(TelemetrySample row, DataOutputView out) throws IOException {
            RowFields.writeTelemetry(row, out);
        }

        @Override
        TelemetrySample read(DataInputView in) throws IOException {
            return RowFields.readTelemetry(in);
        }

        @Override
        public TelemetrySample createInstance() {
            return new TelemetrySample();
        }

        @Override
        public TelemetrySample copy(TelemetrySample from) {
            return RowFields.copy(from);
        }

        @Override
        public TypeSerializerSnapshot<TelemetrySample> snapshotConfiguration() {
            return new TelemetrySnapshot();
        }
    }

    public static final class TelemetrySnapshot extends SimpleTypeSerializerSnapshot<TelemetrySample> {
        public TelemetrySnapshot() {
            super(() -> Telemetry.INSTANCE);
        }
    }

    /** A fitting input: a tag byte (0 telemetry, 1 joined row), then that row. */
    public static final class Input extends RowSerializer<ScopeInput> {
        private static final long serialVersionUID = 1L;
        public static final Input INSTANCE = new Input(RowFields.LAYOUT);

        private Input(int layout) {
            super(layout);
        }

        /** The serializer of a {@link RowFields} layout of the joined rows (older ones restore earlier state). */
        public static Input of(int layout) {
            return layout == RowFields.LAYOUT ? INSTANCE : new Input(layout);
        }

        @Override
        void write(ScopeInput in, DataOutputView out) throws IOException {
            if (in.telemetry != null) {
                out.writeByte(0);
                RowFields.writeTelemetry(in.telemetry, out);
            } else {
                out.writeByte(1);
                RowFields.writeJoined(in.joined, out, layout);
            }
        }

        @Override
        ScopeInput read(DataInputView in) throws IOException {
            byte tag = in.readByte();
            return switch (tag) {
                case 0 -> ScopeInput.of(RowFields.readTelemetry(in));
                case 1 -> ScopeInput.of(RowFields.readJoined(in, layout));
                default -> throw new IOException("unknown fitting input tag " + tag);
            };
        }

        @Override
        public ScopeInput createInstance() {
            return new ScopeInput();
        }

        @Override
        public ScopeInput copy(ScopeInput from) {
            return from.telemetry != null ? ScopeInput.of(RowFields.copy(from.telemetry))
                : ScopeInput.of(RowFields.copy(from.joined));
        }

        @Override
        public TypeSerializerSnapshot<ScopeInput> snapshotConfiguration() {
            return new InputSnapshot().withLayout(layout);
        }
    }

    /** Versioned with the joined row's layout ({@link RowSerializerSnapshot}). */
    public static final class InputSnapshot extends RowSerializerSnapshot<ScopeInput> {
        @Override
        TypeSerializer<ScopeInput> serializer(int layout) {
            return Input.of(layout);
        }
    }
}
