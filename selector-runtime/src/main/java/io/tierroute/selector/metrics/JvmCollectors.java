package io.tierroute.selector.metrics;

import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The JVM's Prometheus collectors, registered once per process in a registry of their own that every
 * {@link SelectorMetrics} built with {@code jvm = true} adds to its scrape. Registering them per
 * {@code SelectorMetrics} would leak: the GC collectors add notification listeners to the JVM's garbage
 * collector beans that are never removed, and a process may build many selectors (tests, the demo run twice).
 */
final class JvmCollectors {

    private static final AtomicInteger registrations = new AtomicInteger();

    private static final class Holder { // initialised on first use, once, by the class loader's lock
        static final PrometheusRegistry REGISTRY = create();

        private static PrometheusRegistry create() {
            PrometheusRegistry r = new PrometheusRegistry();
            JvmMetrics.builder().register(r);
            registrations.incrementAndGet();
            return r;
        }
    }

    private JvmCollectors() {
    }

    /** The process's JVM collectors (registered on the first call). */
    static PrometheusRegistry registry() {
        return Holder.REGISTRY;
    }

    /** How many times this process registered the JVM collectors: at most 1. */
    static int registrations() {
        return registrations.get();
    }
}
