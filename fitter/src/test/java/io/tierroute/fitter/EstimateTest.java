package io.tierroute.fitter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

class EstimateTest {
    private static Estimate fitted(double value, OptionalDouble stdError, long samples) {
        return new Estimate(value, stdError, samples, 0.5, QualityKind.R2, 0, 1);
    }

    @Test
    void aTermIsLeftOutOfTheFitOnlyAtZeroWithAnInfiniteErrorOnRows() {
        assertThat(fitted(0, OptionalDouble.of(Double.POSITIVE_INFINITY), 500).leftOutOfTheFit()).isTrue();
        assertThat(fitted(0, OptionalDouble.of(Double.POSITIVE_INFINITY), 0).leftOutOfTheFit())
            .as("no rows: not fitted at all").isFalse();
        assertThat(fitted(0.002, OptionalDouble.of(Double.POSITIVE_INFINITY), 500).leftOutOfTheFit())
            .as("a value of its own, only imprecise").isFalse();
        assertThat(fitted(0, OptionalDouble.of(1e-4), 500).leftOutOfTheFit()).as("fitted at 0, precisely").isFalse();
        assertThat(fitted(0, OptionalDouble.empty(), 500).leftOutOfTheFit()).as("no error reported").isFalse();
        assertThat(Estimate.unfitted(0).leftOutOfTheFit()).isFalse();
        assertThat(Estimate.leftOutOfTheFit(500, 0, Double.NaN)).as("an Avro value without an error").isFalse();
        assertThat(Estimate.leftOutOfTheFit(500, -0.0, Double.POSITIVE_INFINITY)).isTrue();
    }
}
