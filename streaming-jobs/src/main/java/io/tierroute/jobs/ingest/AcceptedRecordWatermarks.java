package io.tierroute.jobs.ingest;

import org.apache.flink.api.common.eventtime.TimestampAssigner;
import org.apache.flink.api.common.eventtime.TimestampAssignerSupplier;
import org.apache.flink.api.common.eventtime.WatermarkAlignmentParams;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;

/**
 * The input sources' watermarks, generated from the records the job accepted only: a dead letter is invisible to
 * its split's watermark generator (and to its idleness: a split that delivers nothing but dead letters goes idle).
 *
 * <p>Why: a dead letter's event time is its Kafka timestamp, which is whatever its producer set — the wall clock of
 * a tool replaying old records, a skewed clock, or anything at all for a corrupt record. One such record used to
 * advance its split's watermark; once the other splits went idle, the join's event time jumped there, and every
 * side still waiting for its partner expired: the pair was lost (FittingJobTest once under CPU load, its bad records
 * stamped 40 minutes past the workload; {@code DeadLetterEventTimeTest}). A record the job
 * rejects must not move its event time.
 */
public final class AcceptedRecordWatermarks implements WatermarkStrategy<Inbound> {
    private static final long serialVersionUID = 1L;

    private final WatermarkStrategy<Inbound> accepted;

    /** @param accepted the strategy for the accepted records (bounded out-of-orderness, idleness, timestamps) */
    public AcceptedRecordWatermarks(WatermarkStrategy<Inbound> accepted) {
        this.accepted = accepted;
    }

    @Override
    public WatermarkGenerator<Inbound> createWatermarkGenerator(WatermarkGeneratorSupplier.Context context) {
        WatermarkGenerator<Inbound> generator = accepted.createWatermarkGenerator(context);
        return new WatermarkGenerator<>() {
            @Override
            public void onEvent(Inbound event, long eventTimestamp, WatermarkOutput output) {
                if (!event.isDeadLetter()) {
                    generator.onEvent(event, eventTimestamp, output);
                }
            }

            @Override
            public void onPeriodicEmit(WatermarkOutput output) {
                generator.onPeriodicEmit(output);
            }
        };
    }

    /** The wrapped strategy's alignment: wrapping an aligned strategy keeps it aligned. */
    @Override
    public WatermarkAlignmentParams getAlignmentParameters() {
        return accepted.getAlignmentParameters();
    }

    @Override
    public TimestampAssigner<Inbound> createTimestampAssigner(TimestampAssignerSupplier.Context context) {
        return accepted.createTimestampAssigner(context);
    }
}
