package io.tierroute.selector.scheduling;

import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * KV events that put blocks on a tier the worker's configuration gives no bandwidth ({@code workers[i].tiers}; a
 * worker's tiers replace the defaults' whole) while the active parameters do not override that tier's bandwidth (the
 * cost model's rule: an override prices the tier on every worker). The index keeps them, as the engine reported them, but the cost model
 * prices a tier without bandwidth as a miss, so an engine that offloads to a tier the selector was not told about
 * would lose those hits without a word. Both event paths (HTTP and Kafka) count them here; the first per worker and
 * tier is logged, and the HTTP answer says so. Thread-safe.
 */
public final class UnpricedTiers {

    private static final Logger log = LoggerFactory.getLogger(UnpricedTiers.class);

    private final List<WorkerSpec> workers;
    private final Supplier<ParameterSet> parameters;
    private final AtomicLongArray seen;   // per worker × tier: events counted
    private final LongAdder total = new LongAdder();

    /** @param parameters the active parameter set (its bandwidth overrides), read per batch */
    public UnpricedTiers(List<WorkerSpec> workers, Supplier<ParameterSet> parameters) {
        this.workers = List.copyOf(workers);
        this.parameters = parameters;
        this.seen = new AtomicLongArray(workers.size() * Tier.COUNT);
    }

    /** The tier an event puts blocks on (a store, a move's destination), or null for one that puts none. */
    private static Tier placed(KvEvent e) {
        if (e instanceof KvEvent.Stored s) {
            return s.tier();
        }
        return e instanceof KvEvent.Moved m ? m.to() : null;
    }

    /**
     * Counts the events of {@code events} that put blocks on a tier their worker has no bandwidth for; returns the
     * first one's description ({@link #describe}), or null when there is none.
     */
    public String check(List<KvEvent> events) {
        String first = null;
        ParameterSet p = null;
        for (KvEvent e : events) {
            Tier t = placed(e);
            if (t == null || t == Tier.HBM) {
                continue;
            }
            int w = e.worker();
            if (p == null) {
                p = parameters.get();
            }
            if (p.bandwidth(t.ordinal(), workers.get(w).bandwidthNoCopy()[t.ordinal()]) > 0) { // as CostModel prices it
                continue;
            }
            total.increment();
            boolean firstOfItsKind = seen.getAndIncrement(w * Tier.COUNT + t.ordinal()) == 0;
            if (firstOfItsKind) {
                log.warn("{} (logged once per worker and tier; counted in tierroute_kv_events_unpriced_tier_total)",
                        describe(w, t));
            }
            if (first == null) {
                first = describe(w, t); // once per batch
            }
        }
        return first;
    }

    /** What is wrong with blocks on {@code tier} of worker {@code w}, and how to mend it. */
    public String describe(int w, Tier tier) {
        String t = tier.name().toLowerCase(java.util.Locale.ROOT);
        return "worker '" + workers.get(w).name() + "' reports blocks on its " + t + " tier, which the selector's "
                + "configuration gives no bandwidth: they are indexed but never counted as hits (set the worker's tiers."
                + t + " in bytes/s)";
    }

    /** Events counted so far. */
    public long total() {
        return total.sum();
    }
}
