package io.tierroute.jobs.ingest;

/**
 * The fields of an {@code EngineTelemetry} record the fitting needs, flattened into a Flink POJO
 * (cheaper to shuffle than the Avro record). Link samples are parallel arrays, one entry per non-HBM
 * tier the worker reported.
 */
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
