package io.tierroute.selector.params;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Holds the active {@link ParameterSet} and swaps it atomically. A route reads {@link #current()}
 * once and uses that instance throughout, so it never sees half of two snapshots. Sources (the
 * parameter file today, the Kafka loader later) call {@link #activate}.
 */
public final class ParameterStore {

    private static final Logger log = LoggerFactory.getLogger(ParameterStore.class);

    private final AtomicReference<ParameterSet> active;
    private final CopyOnWriteArrayList<Consumer<ParameterSet>> listeners = new CopyOnWriteArrayList<>();

    public ParameterStore(ParameterSet initial) {
        this.active = new AtomicReference<>(Objects.requireNonNull(initial, "initial"));
    }

    /** The active set: one volatile read. */
    public ParameterSet current() {
        return active.get();
    }

    /**
     * Makes {@code next} the active set if it covers the same workers. Returns false, keeping the
     * last good set, when it does not.
     */
    public boolean activate(ParameterSet next) {
        ParameterSet previous = active.get();
        if (next.workers() != previous.workers()) {
            log.warn("ignoring parameter set {} v{} from {}: it covers {} workers, the selector has {}",
                    next.scope(), next.version(), next.source(), next.workers(), previous.workers());
            return false;
        }
        active.set(next);
        // DEBUG: both callers log the swap in their own words (the loader with its timing, a reload as an admin
        // action); at INFO a snapshot a second was two lines a second.
        log.debug("active parameters: scope={} version={} source={} (was version {})",
                next.scope(), next.version(), next.source(), previous.version());
        for (Consumer<ParameterSet> listener : listeners) {
            listener.accept(next);
        }
        return true;
    }

    /** Called after every successful swap (metrics, logs). */
    public void onActivate(Consumer<ParameterSet> listener) {
        listeners.add(listener);
    }
}
