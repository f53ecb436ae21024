package io.tierroute.jobs.serde;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The snapshot of a row serializer whose {@link RowFields} layout changed: its version says the layout. Version 3 is
 * what these classes wrote while they were {@code SimpleTypeSerializerSnapshot}s (its current version, no payload),
 * i.e. the layout before the admission wait's fields; version 4 is that layout plus those fields; version 5 (only the
 * join's waiting side) adds its arrival's wall-clock time ({@link RowFields#LAYOUT_JOIN_CLOCK}); version 6 a decision's
 * {@code lastWorkerHeldTokens} ({@link RowFields#LAYOUT_LAST_WORKER_HELD}, every row serializer). A checkpoint keeps
 * the snapshot's class name, so the subclasses keep the names of the old snapshot classes.
 *
 * <p>On restore Flink reads the old snapshot into an instance of the same class ({@link #readSnapshot}), reads the
 * state with its {@link #restoreSerializer()} (the old layout: new fields "unknown") and asks the new snapshot
 * {@link #resolveSchemaCompatibility}: an older layout is {@code compatibleAfterMigration}, so the backend rewrites
 * the state in the current layout (RocksDB value by value; the heap backend holds objects anyway).
 */
public abstract class RowSerializerSnapshot<T> implements TypeSerializerSnapshot<T> {
    /** {@code SimpleTypeSerializerSnapshot}'s version: the layout {@link RowFields#LAYOUT_BEFORE_KV_WAIT}. */
    static final int VERSION_BEFORE_KV_WAIT = 3;
    /** The layout {@link RowFields#LAYOUT_KV_WAIT}. */
    static final int VERSION_KV_WAIT = 4;
    /** The layout {@link RowFields#LAYOUT_JOIN_CLOCK}. */
    static final int VERSION_JOIN_CLOCK = 5;
    /** The layout {@link RowFields#LAYOUT_LAST_WORKER_HELD}. */
    static final int VERSION_LAST_WORKER_HELD = 6;

    private int layout = RowFields.LAYOUT;

    /** The serializer of the given {@link RowFields} layout. */
    abstract TypeSerializer<T> serializer(int layout);

    /** This snapshot for a serializer of {@code layout} (an older layout's serializer snapshots as the old class did). */
    RowSerializerSnapshot<T> withLayout(int layout) {
        this.layout = layout;
        return this;
    }

    /** The version that says this snapshot's layout (3 for the old layout: written exactly as before). */
    @Override
    public int getCurrentVersion() {
        return switch (layout) {
            case RowFields.LAYOUT_BEFORE_KV_WAIT -> VERSION_BEFORE_KV_WAIT;
            case RowFields.LAYOUT_KV_WAIT -> VERSION_KV_WAIT;
            case RowFields.LAYOUT_JOIN_CLOCK -> VERSION_JOIN_CLOCK;
            case RowFields.LAYOUT_LAST_WORKER_HELD -> VERSION_LAST_WORKER_HELD;
            default -> throw new IllegalStateException("no snapshot version for row layout " + layout);
        };
    }

    @Override
    public void writeSnapshot(DataOutputView out) {
        // nothing: the version says the layout
    }

    @Override
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader) throws IOException {
        layout = switch (readVersion) {
            case VERSION_BEFORE_KV_WAIT -> RowFields.LAYOUT_BEFORE_KV_WAIT;
            case VERSION_KV_WAIT -> RowFields.LAYOUT_KV_WAIT;
            case VERSION_JOIN_CLOCK -> RowFields.LAYOUT_JOIN_CLOCK;
            case VERSION_LAST_WORKER_HELD -> RowFields.LAYOUT_LAST_WORKER_HELD;
            default -> throw new IOException("unknown " + getClass().getSimpleName() + " version " + readVersion);
        };
    }

    @Override
    public TypeSerializer<T> restoreSerializer() {
        return serializer(layout);
    }

    @Override
    public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(TypeSerializerSnapshot<T> old) {
        if (old == null || old.getClass() != getClass()) {
            return TypeSerializerSchemaCompatibility.incompatible();
        }
        int oldLayout = ((RowSerializerSnapshot<T>) old).layout;
        if (oldLayout == layout) {
            return TypeSerializerSchemaCompatibility.compatibleAsIs();
        }
        return oldLayout < layout ? TypeSerializerSchemaCompatibility.compatibleAfterMigration()
            : TypeSerializerSchemaCompatibility.incompatible();
    }

    @Override
    public boolean equals(Object o) {
        return o != null && o.getClass() == getClass() && ((RowSerializerSnapshot<?>) o).layout == layout;
    }

    @Override
    public int hashCode() {
        return getClass().hashCode() * 31 + layout;
    }
}
