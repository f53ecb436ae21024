package io.tierroute.selector.kafka;

import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.Tier;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link RhoAging} on a wall clock the test moves: the served ρ ages while no snapshot replaces it. */
class RhoAgingTest {

    private static final int CPU = Tier.CPU.ordinal();
    private static final long T0 = 1_765_000_000_000L;

    private final AtomicLong clock = new AtomicLong(T0);

    private static ParameterSet measuredAt(long asOfMs, double rho) {
        return ParameterSet.builder(2).version(7).rho(0, Tier.CPU, rho, Double.NaN, asOfMs)
                .rho(1, Tier.CPU, 0.4, Double.NaN, asOfMs + 30_000).build();
    }

    @Test
    void theServedRhoCountsAsZeroOnceOlderThanTheMaximumAge() {
        RhoAging aging = new RhoAging("default", Duration.ofSeconds(60), clock::get);
        ParameterStore store = new ParameterStore(measuredAt(T0, 0.9));

        clock.set(T0 + 60_000);
        aging.ageServed(store);
        assertThat(store.current().rho(0, CPU)).as("60 s old: not older than the maximum").isEqualTo(0.9);

        clock.set(T0 + 60_001);
        ParameterSet before = store.current();
        aging.ageServed(store);
        assertThat(store.current()).isNotSameAs(before);
        assertThat(store.current().rho(0, CPU)).isZero();
        assertThat(store.current().rho(1, CPU)).as("measured 30 s later: still fresh").isEqualTo(0.4);
        assertThat(store.current().version()).as("the same version, its ρ aged").isEqualTo(7);
        assertThat(store.current().rhoAgedOutLinks()).isEqualTo(1);

        ParameterSet once = store.current();
        aging.ageServed(store);
        assertThat(store.current()).as("nothing newly old: no swap").isSameAs(once);

        clock.set(T0 + 90_001);
        aging.ageServed(store);
        assertThat(store.current().rho(1, CPU)).isZero();
        assertThat(store.current().rhoAgedOutLinks()).isEqualTo(2);
    }

    @Test
    void aSetAboutToBeSwappedInIsAgedAtOnce() {
        RhoAging aging = new RhoAging("default", Duration.ofSeconds(60), clock::get);
        ParameterSet rolledBack = measuredAt(T0 - 3_600_000, 0.95); // a pin to an hour-old version
        ParameterSet aged = aging.age(rolledBack);
        assertThat(aged.rho(0, CPU)).isZero();
        assertThat(aged.rho(1, CPU)).isZero();
        assertThat(aged.rhoAgedOutLinks()).isEqualTo(2);

        ParameterSet fresh = measuredAt(T0 - 1_000, 0.95);
        assertThat(aging.age(fresh)).isSameAs(fresh);
    }

    @Test
    void zeroMeansRhoNeverAgesAndANegativeAgeIsRefused() {
        RhoAging never = new RhoAging("default", Duration.ZERO, clock::get);
        ParameterSet old = measuredAt(0, 0.9);
        assertThat(never.age(old)).isSameAs(old);
        assertThatThrownBy(() -> new RhoAging("default", Duration.ofSeconds(-1), clock::get))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rhoMaxAge must be >= 0");
    }
}
