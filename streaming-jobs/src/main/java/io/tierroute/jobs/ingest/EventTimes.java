package io.tierroute.jobs.ingest;

import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;

/** Event time of an {@link Inbound}: set by {@link RecordDecoder} (the Kafka timestamp for a dead letter). */
public final class EventTimes implements SerializableTimestampAssigner<Inbound> {
    private static final long serialVersionUID = 1L;

    @Override
    public long extractTimestamp(Inbound in, long recordTimestamp) {
        return in.eventTimeMs;
    }
}
