package io.tierroute.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.jobs.ingest.RecordValidator;
import io.tierroute.schemas.avro.RoutingDecision;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A decision's admission-wait inputs and C_own's regressor are checked at the boundary like its other features: a
 * negative KV in use or in-flight count, or a negative or infinite predicted cost, is a dead letter that names the
 * field, not a KvWaitRow.
 */
class RecordValidatorDecisionTest {

    private final RecordValidator validator = new RecordValidator(3_600_000);
    private final long now = System.currentTimeMillis();

    private String check(Consumer<RoutingDecision> change) {
        RoutingDecision d = new Workload(1, "default", now - 60_000, 0)
                .decision("r1", "w1", now - 1_000, 2000, 0, 2e6, 0, 0, 0, 0, 0, null, 0, 2000);
        change.accept(d);
        return validator.decision(d, now);
    }

    @Test
    void theAdmissionWaitsInputsAreValidated() {
        assertThat(check(d -> {})).isNull();
        assertThat(check(d -> d.getFeatures().setKvUsedTokens(-1_000_000_000L)))
                .isEqualTo("features.kvUsedTokens must be >= 0, got -1000000000");
        assertThat(check(d -> d.getFeatures().setInFlight(-1))).isEqualTo("features.inFlight must be >= 0, got -1");
        assertThat(check(d -> d.getFeatures().setOwnDecodeKvTokenSteps(Double.NaN)))
                .isEqualTo("features.ownDecodeKvTokenSteps must be finite, got NaN");
        assertThat(check(d -> d.getCost().setQueueUs(-5))).isEqualTo("cost.queueUs must be >= 0, got -5.0");
        assertThat(check(d -> d.getCost().setPrefillUs(Double.POSITIVE_INFINITY)))
                .isEqualTo("cost.prefillUs must be finite, got Infinity");
    }
}
