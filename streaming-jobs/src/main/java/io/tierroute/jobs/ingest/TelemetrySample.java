package io.tierroute.jobs.ingest;

import io.tierroute.jobs.serde.RowTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * The fields of an {@code EngineTelemetry} record the fitting needs, flattened (cheaper to shuffle than
 * the Avro record; serialized by {@code RowSerializers.Telemetry}, its {@code @TypeInfo}). Link samples
 * are parallel arrays, one entry per non-HBM tier the worker reported.
 */
@TypeInfo(RowTypeInfo.OfTelemetry.class)
public class TelemetrySample {
    public String scope;
    public String worker;
    public String engineType;
    public String hardwarePool;
    public long timestampMs;
    public long intervalMs;
    public int runningRequests;
    public long prefillTokens;
    public long prefillBusyUs;
    public long decodeSteps;
    public long decodeBusyUs;
    public String[] linkTiers;
    public long[] linkBytes;
    public long[] linkIntervalMs;

    public TelemetrySample() {}
}
