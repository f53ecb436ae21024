package io.tierroute.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Absurd values in a trace line are refused with the field named, before replay allocates for them. */
class TraceLimitsTest {

    @Test
    void anAzureLineClaimingTwoBillionContextTokensIsRefused() {
        assertThatThrownBy(() -> new AzureReader().parse("2023-11-16 18:15:46.6805900,2000000000,44", null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ContextTokens");
    }

    @Test
    void aMooncakeLineWithAnOverflowingTimestampOrLengthIsRefused() {
        MooncakeReader r = new MooncakeReader();
        assertThatThrownBy(() -> r.parse("{\"timestamp\":9223372036854776,\"input_length\":5,\"output_length\":1,"
                + "\"hash_ids\":[1]}", null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timestamp");
        assertThatThrownBy(() -> r.parse("{\"timestamp\":1,\"input_length\":4294967297,\"output_length\":1,"
                + "\"hash_ids\":[1]}", null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> r.parse("{\"timestamp\":1,\"input_length\":20000000,\"output_length\":1,"
                + "\"hash_ids\":[1]}", null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("input_length");
    }

    @Test
    void theLimitLeavesRealTraceLinesAlone() {
        assertThat(new AzureReader().parse("2023-11-16 18:15:46.6805900,374,44", null).inputTokens()).isEqualTo(374);
    }
}
