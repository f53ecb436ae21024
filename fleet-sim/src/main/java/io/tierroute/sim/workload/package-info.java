/**
 * Generated workloads ({@link io.tierroute.sim.workload.Workload}, named in
 * {@link io.tierroute.sim.workload.Workloads}): the llm-d blog shape and its CPU-overflow and NVMe-overflow variants
 * ({@code SharedPrefixWorkload}), agentic workflows with tool gaps, growing contexts and hints
 * ({@code AgenticWorkload}), multi-turn chat ({@code ChatWorkload}); and
 * {@link io.tierroute.sim.workload.RequestFactory}, which chains block ids into the hashes engines and
 * the selector share. Every generator documents its distributions and is deterministic per seed.
 */
package io.tierroute.sim.workload;
