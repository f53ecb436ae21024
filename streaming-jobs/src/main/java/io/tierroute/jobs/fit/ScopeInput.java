package io.tierroute.jobs.fit;

import io.tierroute.jobs.ingest.TelemetrySample;
import io.tierroute.jobs.join.JoinedRow;
import io.tierroute.jobs.serde.RowTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/** One input of the per-scope fitting operator: exactly one of a telemetry sample or a joined row. */
@TypeInfo(RowTypeInfo.OfInput.class)
public class ScopeInput {
    public TelemetrySample telemetry;
    public JoinedRow joined;

    public ScopeInput() {}

    public static ScopeInput of(TelemetrySample t) {
        ScopeInput in = new ScopeInput();
        in.telemetry = t;
        return in;
    }

    public static ScopeInput of(JoinedRow r) {
        ScopeInput in = new ScopeInput();
        in.joined = r;
        return in;
    }

    public String scope() {
        return telemetry != null ? telemetry.scope : joined.scope;
    }
}
