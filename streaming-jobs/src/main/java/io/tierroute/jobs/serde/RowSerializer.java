package io.tierroute.jobs.serde;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A stateless {@link org.apache.flink.api.common.typeutils.TypeSerializer} of one mutable row class,
 * written field by field ({@link RowFields}) in one layout: the current one, or an older one to restore state
 * written by an earlier version ({@link RowSerializerSnapshot}); see {@link RowSerializers} for the concrete ones.
 */
abstract class RowSerializer<T> extends TypeSerializerSingleton<T> {
    private static final long serialVersionUID = 1L;
    /** The {@link RowFields} layout read and written. */
    final int layout;

    RowSerializer() {
        this(RowFields.LAYOUT);
    }

    RowSerializer(int layout) {
        this.layout = layout;
    }

    @Override
    public boolean equals(Object o) {
        return o != null && o.getClass() == getClass() && ((RowSerializer<?>) o).layout == layout;
    }

    @Override
    public int hashCode() {
        return getClass().hashCode() * 31 + layout;
    }

    abstract void write(T row, DataOutputView out) throws IOException;

    abstract T read(DataInputView in) throws IOException;

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public T copy(T from, T reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(T record, DataOutputView target) throws IOException {
        write(record, target);
    }

    @Override
    public T deserialize(DataInputView source) throws IOException {
        return read(source);
    }

    @Override
    public T deserialize(T reuse, DataInputView source) throws IOException {
        return read(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        write(read(source), target);
    }
}
