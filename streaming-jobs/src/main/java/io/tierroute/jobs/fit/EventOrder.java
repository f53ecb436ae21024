package io.tierroute.jobs.fit;

import io.tierroute.jobs.ingest.TelemetrySample;
import io.tierroute.jobs.join.JoinedRow;
import io.tierroute.schemas.avro.SnapshotControl;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The order in which the event-time mode applies one tick's inputs: a total order on their content
 * (event time, then telemetry before joined rows, then worker, then the full encoded row), so the
 * result does not depend on the order in which the shuffles happened to deliver them.
 */
final class EventOrder {
    private EventOrder() {}

    /** Event time of a fitting input: the telemetry interval's end, or the completion's time. */
    static long timeOf(ScopeInput in) {
        return in.telemetry != null ? in.telemetry.timestampMs : in.joined.eventTimeMs;
    }

    static final Comparator<ScopeInput> INPUTS = Comparator
        .comparingLong(EventOrder::timeOf)
        .thenComparingInt(in -> in.telemetry != null ? 0 : 1)
        .thenComparing(in -> in.telemetry != null ? in.telemetry.worker : in.joined.worker,
            Comparator.nullsFirst(Comparator.naturalOrder()))
        .thenComparing(EventOrder::encoded, Arrays::compare);

    /** Control records of one tick: by sequence (a lower one arriving after a higher one is ignored, as always). */
    static final Comparator<SnapshotControl> CONTROLS = Comparator
        .comparingLong(SnapshotControl::getSequence)
        .thenComparingLong(SnapshotControl::getTimestampMs);

    private static byte[] encoded(ScopeInput in) {
        if (in.telemetry != null) {
            return RowCodec.encodeTelemetry(List.<TelemetrySample>of(in.telemetry));
        }
        return RowCodec.encodeRows(List.<JoinedRow>of(in.joined));
    }
}
