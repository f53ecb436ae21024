/**
 * Trace replay: a {@link io.tierroute.sim.trace.TraceReader} per source format behind the
 * {@link io.tierroute.sim.trace.TraceFormat} enum (Mooncake JSONL with 512-token block ids, Azure CSV
 * with lengths and arrivals only), and {@link io.tierroute.sim.trace.TraceReplay}, which turns records
 * into requests (equal timestamps spread, block ids chained into hashes, max_tokens chosen).
 */
package io.tierroute.sim.trace;
