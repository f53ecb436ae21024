package io.tierroute.selector.threads;

import org.slf4j.LoggerFactory;

/**
 * Why a Kafka part's thread (replica sync's direct path's included) stopped for good: an {@link Error} (out of memory,
 * a stack overflow, a class that failed to load) leaves its state in doubt and would most likely come back, so the
 * thread ends instead of restarting, and the part says so for good: {@code /healthz} answers 503 with it (the
 * orchestrator restarts the selector) and {@code tierroute_kafka_part_stopped{part}} is 1. Written once by the part's
 * thread; read by any.
 */
public final class PartStop {

    private final String part;
    private volatile String why;

    /** @param part the part in messages ({@code kv consumer}) */
    public PartStop(String part) {
        this.part = part;
    }

    /** Records {@code error} (the first one stays) and logs it: ERROR, naming the part and what it was doing. */
    public void record(Throwable error, String doing) {
        if (why == null) {
            why = error + ", " + doing; // first: under an OutOfMemoryError the log line below may fail
        }
        try {
            LoggerFactory.getLogger(PartStop.class).error("{} stopped by {}, {}; it does not restart: restart "
                    + "the selector (/healthz answers 503 until then)", part, error.toString(), doing, error);
        } catch (Throwable ignored) {
            // out of memory even to log: the failure stays readable by health and metrics
        }
    }

    /** Why the part stopped ({@code java.lang.OutOfMemoryError: Java heap space, applying …}), or null while it runs. */
    public String why() {
        return why;
    }

    public String part() {
        return part;
    }
}
