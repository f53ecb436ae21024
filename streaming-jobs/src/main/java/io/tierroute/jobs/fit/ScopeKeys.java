package io.tierroute.jobs.fit;

import io.tierroute.jobs.ingest.TelemetrySample;
import io.tierroute.jobs.join.JoinedRow;
import io.tierroute.schemas.avro.SnapshotControl;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.java.functions.KeySelector;

/** The key selectors and small maps of the job, as named classes. */
public final class ScopeKeys {
    private ScopeKeys() {}

    /** Scope of a fitting input. */
    public static final class OfInput implements KeySelector<ScopeInput, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(ScopeInput in) {
            return in.scope();
        }
    }

    /** Scope of a control record. */
    public static final class OfControl implements KeySelector<SnapshotControl, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(SnapshotControl c) {
            return c.getScope().toString();
        }
    }

    /** Wraps a telemetry sample as a fitting input. */
    public static final class WrapTelemetry implements MapFunction<TelemetrySample, ScopeInput> {
        private static final long serialVersionUID = 1L;

        @Override
        public ScopeInput map(TelemetrySample t) {
            return ScopeInput.of(t);
        }
    }

    /** Wraps a joined row as a fitting input. */
    public static final class WrapJoined implements MapFunction<JoinedRow, ScopeInput> {
        private static final long serialVersionUID = 1L;

        @Override
        public ScopeInput map(JoinedRow r) {
            return ScopeInput.of(r);
        }
    }
}
