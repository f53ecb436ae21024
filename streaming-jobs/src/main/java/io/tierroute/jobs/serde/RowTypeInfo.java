package io.tierroute.jobs.serde;

import io.tierroute.jobs.fit.ScopeInput;
import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;
import io.tierroute.jobs.ingest.TelemetrySample;
import io.tierroute.jobs.join.JoinedRow;
import io.tierroute.jobs.join.PendingJoin;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information of a row class with its hand-written serializer; the factories below are named by the
 * row classes' {@code @TypeInfo}, so every stream and state of those classes uses {@link RowSerializers}
 * instead of Flink's reflective POJO serializer.
 */
public final class RowTypeInfo<T> extends TypeInformation<T> {
    private static final long serialVersionUID = 1L;
    private final Class<T> type;
    private final TypeSerializer<T> serializer;

    RowTypeInfo(Class<T> type, TypeSerializer<T> serializer) {
        this.type = type;
        this.serializer = serializer;
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<T> getTypeClass() {
        return type;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<T> createSerializer(SerializerConfig config) {
        return serializer;
    }

    @Override
    public String toString() {
        return "RowTypeInfo<" + type.getSimpleName() + ">";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RowTypeInfo<?> r && r.type == type;
    }

    @Override
    public int hashCode() {
        return type.hashCode();
    }

    @Override
    public boolean canEqual(Object o) {
        return o instanceof RowTypeInfo;
    }

    public static final class OfDecision extends TypeInfoFactory<DecisionRow> {
        @Override
        public TypeInformation<DecisionRow> createTypeInfo(Type t, Map<String, TypeInformation<?>> params) {
            return new RowTypeInfo<>(DecisionRow.class, RowSerializers.Decision.INSTANCE);
        }
    }

    public static final class OfCompletion extends TypeInfoFactory<CompletionRow> {
        @Override
        public TypeInformation<CompletionRow> createTypeInfo(Type t, Map<String, TypeInformation<?>> params) {
            return new RowTypeInfo<>(CompletionRow.class, RowSerializers.Completion.INSTANCE);
        }
    }

    public static final class OfJoined extends TypeInfoFactory<JoinedRow> {
        @Override
        public TypeInformation<JoinedRow> createTypeInfo(Type t, Map<String, TypeInformation<?>> params) {
            return new RowTypeInfo<>(JoinedRow.class, RowSerializers.Joined.INSTANCE);
        }
    }

    public static final class OfTelemetry extends TypeInfoFactory<TelemetrySample> {
        @Override
        public TypeInformation<TelemetrySample> createTypeInfo(Type t, Map<String, TypeInformation<?>> params) {
            return new RowTypeInfo<>(TelemetrySample.class, RowSerializers.Telemetry.INSTANCE);
        }
    }

    public static final class OfInput extends TypeInfoFactory<ScopeInput> {
        @Override
        public TypeInformation<ScopeInput> createTypeInfo(Type t, Map<String, TypeInformation<?>> params) {
            return new RowTypeInfo<>(ScopeInput.class, RowSerializers.Input.INSTANCE);
        }
    }

    public static final class OfPendingJoin extends TypeInfoFactory<PendingJoin> {
        @Override
        public TypeInformation<PendingJoin> createTypeInfo(Type t, Map<String, TypeInformation<?>> params) {
            return new RowTypeInfo<>(PendingJoin.class, PendingJoinSerializer.INSTANCE);
        }
    }
}
