package io.tierroute.jobs.ingest;

import org.apache.flink.api.common.eventtime.TimestampAssigner;
import org.apache.flink.api.common.eventtime.TimestampAssignerSupplier;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;

/**
 * Watermarks of the control source: none, and the source is marked idle at every periodic emit, so the
 * (mostly empty) control topic never holds back the fitting operator's event time. Control records carry
 * their own timestamp, which the event-time mode uses to place them on a tick.
 */
public final class IdleWatermarks implements WatermarkStrategy<Inbound> {
    private static final long serialVersionUID = 1L;

    @Override
    public WatermarkGenerator<Inbound> createWatermarkGenerator(WatermarkGeneratorSupplier.Context context) {
        return new WatermarkGenerator<>() {
            @Override
            public void onEvent(Inbound event, long eventTimestamp, WatermarkOutput output) {}

            @Override
            public void onPeriodicEmit(WatermarkOutput output) {
                output.markIdle();
            }
        };
    }

    @Override
    public TimestampAssigner<Inbound> createTimestampAssigner(TimestampAssignerSupplier.Context context) {
        return new EventTimes();
    }
}
