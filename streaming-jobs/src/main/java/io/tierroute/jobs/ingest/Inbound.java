package io.tierroute.jobs.ingest;

import io.tierroute.schemas.avro.CompletionLog;
import io.tierroute.schemas.avro.DeadLetter;
import io.tierroute.schemas.avro.EngineTelemetry;
import io.tierroute.schemas.avro.RoutingDecision;
import io.tierroute.schemas.avro.SnapshotControl;

/**
 * What a source emits for one Kafka record: exactly one of the four decoded records, or the
 * {@link DeadLetter} that replaces a record that did not decode or failed validation. A Flink POJO
 * (public fields, no-arg constructor); the Avro fields use Flink's Avro serializer. It only lives
 * between a source and its chained {@link InboundSplit}, so it is normally never serialized.
 */
public class Inbound {
    public EngineTelemetry telemetry;
    public CompletionLog completion;
    public RoutingDecision decision;
    public SnapshotControl control;
    public DeadLetter deadLetter;
    /**
     * A decision whose writer schema has no admission-wait inputs (RoutingDecision v1): its kvUsedTokens, inFlight
     * and queueUs are Avro's defaults, not measurements.
     */
    public boolean admissionWaitUnknown;
    /** A decision whose writer schema has no queuedPrefillTokens (RoutingDecision v1): its α_p column is unknown. */
    public boolean queuedPrefillUnknown;
    /**
     * A decision whose writer schema has no lastWorkerHeldTokens (before RoutingDecision v5): its null says nothing,
     * where a v5 writer's null says the selector took no λ observation.
     */
    public boolean lastWorkerHeldUnsaid;
    /** Event time: the record's own timestamp, or the Kafka timestamp for a dead letter. */
    public long eventTimeMs;
    public int partition;
    public long offset;

    public Inbound() {}

    public boolean isDeadLetter() {
        return deadLetter != null;
    }
}
