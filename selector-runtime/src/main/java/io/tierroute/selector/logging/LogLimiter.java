package io.tierroute.selector.logging;

import java.util.concurrent.atomic.AtomicLong;

/** Logs the first {@code burst} occurrences of a problem, then one in {@code every}, so bad input cannot flood the log. */
public final class LogLimiter {

    private final long burst;
    private final long every;
    private final AtomicLong seen = new AtomicLong();

    public LogLimiter(long burst, long every) {
        this.burst = burst;
        this.every = every;
    }

    /** Counts one occurrence; true when this one should be logged. */
    public boolean allow() {
        long n = seen.incrementAndGet();
        return n <= burst || n % every == 0;
    }
}
