package io.tierroute.jobs.serde;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A {@code byte[]} serializer for arrays that are never written after they enter state (the sealed replay
 * chunks): declared immutable, so the heap backend's copy-on-write after a checkpoint shares the arrays
 * instead of copying every chunk of the map (that copy was a quarter of the fitting task's allocation).
 * Same bytes on the wire as Flink's {@code BytePrimitiveArraySerializer}: the length, then the bytes.
 */
public final class ImmutableBytes extends TypeSerializerSingleton<byte[]> {
    private static final long serialVersionUID = 1L;
    public static final ImmutableBytes INSTANCE = new ImmutableBytes();
    private static final byte[] EMPTY = new byte[0];

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public byte[] createInstance() {
        return EMPTY;
    }

    @Override
    public byte[] copy(byte[] from) {
        return from;
    }

    @Override
    public byte[] copy(byte[] from, byte[] reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(byte[] record, DataOutputView target) throws IOException {
        target.writeInt(record.length);
        target.write(record);
    }

    @Override
    public byte[] deserialize(DataInputView source) throws IOException {
        byte[] b = new byte[source.readInt()];
        source.readFully(b);
        return b;
    }

    @Override
    public byte[] deserialize(byte[] reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        int n = source.readInt();
        target.writeInt(n);
        target.write(source, n);
    }

    @Override
    public TypeSerializerSnapshot<byte[]> snapshotConfiguration() {
        return new Snapshot();
    }

    public static final class Snapshot extends SimpleTypeSerializerSnapshot<byte[]> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
