package io.tierroute.jobs.fit;

import static io.tierroute.jobs.fit.FitHarness.TICK;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.jobs.PublishedParams;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.snapshot.ActivationRule;
import io.tierroute.schemas.snapshot.ControlRecordCheck;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The version sequence's end: readers ignore a version past {@link ControlRecordCheck#MAX_VERSION}, so a scope whose
 * next version would pass it publishes nothing (an ERROR, counter {@code publishesHeldAtMaxVersion}); before, the job
 * published 2^62 + 1 and on, every one of them ignored by every reader, silently.
 */
class VersionBoundTest {
    private static final long START = 1_700_000_000_000L;
    private static final long MAX = ControlRecordCheck.MAX_VERSION;

    @Test
    void aScopeWhoseNextVersionWouldPassTheBoundPublishesNothing() throws Exception {
        PublishedParams.Builder topic = new PublishedParams.Builder();
        assertThat(topic.snapshot("at", MAX)).as("the bound itself is read").isTrue();
        assertThat(topic.snapshot("below", MAX - 1)).isTrue();
        FitHarness f = FitHarness.open(FitHarness.settings().build(), topic.build());
        SplittableRandom rnd = new SplittableRandom(5);
        f.h.setProcessingTime(0);
        f.rows("at", 400, START, rnd);
        f.rows("below", 400, START, rnd);
        f.h.setProcessingTime(TICK);
        List<ParameterSnapshot> out = f.h.extractOutputValues();
        assertThat(out).extracting(s -> s.getScope().toString() + "=" + s.getVersion()).containsExactly("below=" + MAX);
        assertThat(f.function().heldAtMaxVersionCount()).isEqualTo(1);
        ActivationRule readers = new ActivationRule();
        out.forEach(readers::onSnapshot);
        assertThat(readers.activeVersion("below")).as("2^62 itself is taken").hasValue(MAX);

        f.rows("below", 20, START + 10_000, rnd);
        f.h.setProcessingTime(2 * TICK);
        assertThat(f.h.extractOutputValues()).as("2^62 + 1 is not published").hasSize(1);
        assertThat(f.function().heldAtMaxVersionCount()).isEqualTo(2);
        f.h.close();
    }
}
