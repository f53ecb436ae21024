package io.tierroute.jobs.serde;

import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;
import io.tierroute.jobs.join.PendingJoin;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The join's waiting side: a tag byte (0 decision, 1 completion), that row ({@link RowFields}), the deadline,
 * the watermark at its arrival and (from layout {@link RowFields#LAYOUT_JOIN_CLOCK}) the wall-clock time of its arrival.
 *
 * <p>Declared immutable: the join puts a {@link PendingJoin} into its map state once and never changes it
 * (it removes the entry when the other side or the clean-up comes), so the heap backend's copy-on-write of a
 * shard's map after each checkpoint may share the entries instead of copying every waiting row field by
 * field (with 60 s of watermark drift tens of thousands wait at any time).
 */
public final class PendingJoinSerializer extends RowSerializer<PendingJoin> {
    private static final long serialVersionUID = 1L;
    public static final PendingJoinSerializer INSTANCE = new PendingJoinSerializer(RowFields.LAYOUT);

    private PendingJoinSerializer(int layout) {
        super(layout);
    }

    /** The serializer of a {@link RowFields} layout of the rows (older ones restore state of earlier versions). */
    public static PendingJoinSerializer of(int layout) {
        return layout == RowFields.LAYOUT ? INSTANCE : new PendingJoinSerializer(layout);
    }

    @Override
    void write(PendingJoin p, DataOutputView out) throws IOException {
        if (p.decision != null) {
            out.writeByte(0);
            RowFields.writeDecision(p.decision, out, layout);
        } else {
            out.writeByte(1);
            RowFields.writeCompletion(p.completion, out, layout);
        }
        out.writeLong(p.deadlineMs);
        out.writeLong(p.arrivalWatermark);
        if (layout >= RowFields.LAYOUT_JOIN_CLOCK) {
            out.writeLong(p.arrivalClockMs);
        }
    }

    @Override
    PendingJoin read(DataInputView in) throws IOException {
        byte tag = in.readByte();
        DecisionRow d = null;
        CompletionRow c = null;
        switch (tag) {
            case 0 -> d = RowFields.readDecision(in, layout);
            case 1 -> c = RowFields.readCompletion(in, layout);
            default -> throw new IOException("unknown pending join tag " + tag);
        }
        long deadline = in.readLong();
        long arrivalWatermark = in.readLong();
        long arrivalClock = layout >= RowFields.LAYOUT_JOIN_CLOCK ? in.readLong() : PendingJoin.UNKNOWN_ARRIVAL_CLOCK;
        return new PendingJoin(d, c, deadline, arrivalWatermark, arrivalClock);
    }

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public PendingJoin createInstance() {
        return new PendingJoin(null, null, 0, Long.MIN_VALUE, PendingJoin.UNKNOWN_ARRIVAL_CLOCK);
    }

    @Override
    public PendingJoin copy(PendingJoin from) {
        return from;
    }

    @Override
    public TypeSerializerSnapshot<PendingJoin> snapshotConfiguration() {
        return new Snapshot().withLayout(layout);
    }

    /** Versioned with the rows' layout ({@link RowSerializerSnapshot}); the class name old checkpoints name. */
    public static final class Snapshot extends RowSerializerSnapshot<PendingJoin> {
        @Override
        TypeSerializer<PendingJoin> serializer(int layout) {
            return of(layout);
        }
    }
}
