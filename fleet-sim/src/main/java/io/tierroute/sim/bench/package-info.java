/**
 * The routing-quality benchmark: {@link io.tierroute.sim.bench.BenchSpec} (source, fleet, loads,
 * policies), {@link io.tierroute.sim.bench.BenchRunner} (every policy × load on the same requests),
 * {@link io.tierroute.sim.bench.RunReport} (the figures as data) and the reporters: text table, CSV,
 * and a self-contained HTML page with TTFT CDFs and load–latency curves. Over several seeds:
 * {@link io.tierroute.sim.bench.SeedList} (the {@code --seed} list), {@link io.tierroute.sim.bench.SeedSweep}
 * (one benchmark per seed), {@link io.tierroute.sim.bench.SeedSummary} (their spread) and its CSV and text reporters.
 */
package io.tierroute.sim.bench;
