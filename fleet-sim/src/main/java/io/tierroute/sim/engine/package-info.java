/**
 * The discrete-event engine-fleet model (DESIGN.md §6). {@link io.tierroute.sim.engine.Simulation} owns
 * the virtual clock and the event queue and drives one policy; {@code Worker} owns a worker's batching,
 * preemption and requests ({@code Sequence}); {@code KvCache} owns its HBM and CPU blocks, eviction and
 * KV events; {@link io.tierroute.sim.engine.PcieLink} the shared host→device link;
 * {@link io.tierroute.sim.engine.StepTimeModel} the published step-time formulas;
 * {@link io.tierroute.sim.engine.EngineConfig} the fleet's settings. Single-threaded and deterministic.
 */
package io.tierroute.sim.engine;
