package io.tierroute.jobs.fit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** One line a period per scope: a scope logging does not silence another (it did: one limit per subtask). */
class PerScopeLogLimitTest {
    private static final long MINUTE = 60_000_000_000L;

    @Test
    void eachScopeLogsOnceAPeriod() {
        PerScopeLogLimit limit = new PerScopeLogLimit(MINUTE);
        long t0 = -5_000_000_000L; // nanoTime may be negative
        assertThat(limit.allow("a", t0)).isTrue();
        assertThat(limit.allow("b", t0 + 1)).as("another scope, same minute").isTrue();
        assertThat(limit.allow("a", t0 + MINUTE - 1)).isFalse();
        assertThat(limit.allow("b", t0 + MINUTE)).isFalse();
        assertThat(limit.allow("a", t0 + MINUTE)).as("a minute on").isTrue();
        assertThat(limit.allow("b", t0 + MINUTE + 1)).isTrue();
        assertThat(limit.allow("a", t0 + MINUTE + 2)).isFalse();
    }
}
