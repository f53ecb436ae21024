/**
 * Prometheus metrics of one selector server, in a registry of its own (several servers can share a
 * JVM, as tests do). Counters the selector and the index writer keep are read by callbacks at
 * scrape time; the HTTP layer records outcomes, latency and status classes.
 */
package io.tierroute.selector.metrics;
