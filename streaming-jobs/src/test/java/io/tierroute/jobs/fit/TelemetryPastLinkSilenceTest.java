package io.tierroute.jobs.fit;

import static io.tierroute.jobs.fit.FitHarness.TICK;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.WorkerTierRho;
import java.util.List;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.junit.jupiter.api.Test;

/**
 * Telemetry more than the links' silence (10 min) behind the job's event time: applied, but its links are retired as
 * silent at the next publish, so its worker's ρ never appears. That is counted ({@code telemetryPastLinkSilence}) and
 * logged rather than silent; a sample within the silence is not counted and its ρ is published.
 */
class TelemetryPastLinkSilenceTest {
    private static final long NOW_MS = 1_700_000_000_000L;

    @Test
    void telemetryPastTheLinksSilenceIsCountedAndItsRhoIsNotPublished() throws Exception {
        FitHarness f = FitHarness.open(FitHarness.settings().build());
        f.h.setProcessingTime(0);
        f.input(FitHarness.telemetry("default", "early", NOW_MS - 1000)); // no event time yet: nothing to compare with
        f.h.processBothWatermarks(new Watermark(NOW_MS));
        for (int i = 0; i < 5; i++) { // the gate publishes a ρ from 3 samples on
            f.input(FitHarness.telemetry("default", "w-late", NOW_MS - ScopeEstimators.LINK_SILENCE_MS - 5_000 + 1000 * i));
            f.input(FitHarness.telemetry("default", "w-recent", NOW_MS - ScopeEstimators.LINK_SILENCE_MS + 1000 * i));
        }
        assertThat(f.function().telemetryPastLinkSilenceCount()).as("w-late's five, not the one before any watermark")
            .isEqualTo(5);

        f.h.setProcessingTime(TICK);
        List<ParameterSnapshot> out = f.h.extractOutputValues();
        assertThat(out).hasSize(1);
        assertThat(out.get(0).getRho()).extracting(WorkerTierRho::getWorker).map(CharSequence::toString)
            .contains("w-recent").doesNotContain("w-late");
        f.h.close();
    }
}
