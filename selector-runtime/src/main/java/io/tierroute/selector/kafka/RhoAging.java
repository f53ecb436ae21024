package io.tierroute.selector.kafka;

import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.function.LongSupplier;

/**
 * Ages out the ρ_t(w) of the served set: a ρ whose fitting window ended more than {@code kafka.params.rhoMaxAge} ago
 * counts as 0 (DESIGN's default, a link nothing is known of) until a snapshot brings a newer one.
 *
 * <p><b>Why.</b> ρ travels with the snapshot the gate accepted. When the fitting job stops, or the gate rejects its
 * snapshots for minutes (an α jump), or an operator pins the scope to an older version, the served ρ stays as it was
 * measured: a link congested then stays cut off (ρ past ρ_thr is a miss), one congested since is not seen. Ageing it
 * out is the lesser error: the link is priced at its bandwidth, as a selector without telemetry would.
 *
 * <p><b>Clocks.</b> The window ends are the engines' telemetry times; the cutoff is this host's wall clock. An engine
 * whose clock is behind by more than the maximum age has its ρ aged out at once (the WARN names the age).
 *
 * <p>Loader thread only (the store's single writer while the loader runs): {@link #age} on a set about to be swapped
 * in, {@link #ageServed} after each poll and topic lookup and through the loader's back-off waits.
 */
final class RhoAging {

    private static final Logger log = LoggerFactory.getLogger(ParameterLoader.class); // the loader's messages, its logger

    private static final long WARN_EVERY_NANOS = 60_000_000_000L;

    private final String scope;
    private final long maxAgeMs;       // 0: ρ never ages
    private final LongSupplier wallClockMs;
    private boolean warned;
    private long warnedAtNanos; // the throttle's own clock: a wall clock stepped back would silence it

    /**
     * @param maxAge      how old a ρ may be before it counts as 0 ({@link Duration#ZERO}: never)
     * @param wallClockMs the time the ages are taken at, ms since the epoch
     */
    RhoAging(String scope, Duration maxAge, LongSupplier wallClockMs) {
        if (maxAge.isNegative()) {
            throw new IllegalArgumentException("rhoMaxAge must be >= 0, got " + maxAge);
        }
        this.scope = scope;
        this.maxAgeMs = maxAge.isZero() ? 0 : Math.max(1, maxAge.toMillis());
        this.wallClockMs = wallClockMs;
    }

    /** {@code set} with its ρ older than the maximum age set to 0 (the same set when none is, or ρ never ages). */
    ParameterSet age(ParameterSet set) {
        if (maxAgeMs == 0) {
            return set;
        }
        long now = wallClockMs.getAsLong();
        ParameterSet aged = set.withRhoMeasuredBefore(now - maxAgeMs);
        // At most one WARN a minute: a worker whose telemetry stopped keeps its last ρ in every snapshot until the job
        // retires its link (10 min), so each accepted snapshot (one a second) would age it out again.
        if (aged != set && (!warned || System.nanoTime() - warnedAtNanos >= WARN_EVERY_NANOS)) {
            warned = true;
            warnedAtNanos = System.nanoTime();
            long oldestMs = set.oldestRhoAsOfMs();
            log.warn("params loader: rho of {} link(s) in version {} of scope '{}' is older than kafka.params.rhoMaxAge "
                    + "({} ms; the oldest measured up to {}, {} ms ago): priced as idle links (rho 0) until a snapshot "
                    + "brings a newer rho. Is the fitting job running, are its snapshots accepted, and do the engines "
                    + "still send telemetry? (said at most once a minute)", aged.rhoAgedOutLinks() - set.rhoAgedOutLinks(),
                    set.version(), scope, maxAgeMs, Instant.ofEpochMilli(oldestMs), now - oldestMs);
        }
        return aged;
    }

    /** Swaps in the served set with its ρ aged, when some ρ became too old since it was swapped in. */
    void ageServed(ParameterStore store) {
        ParameterSet served = store.current();
        ParameterSet aged = age(served);
        if (aged != served) {
            store.activate(aged);
        }
    }
}
