/**
 * Parameters of the cost model: {@code CostParameters} (the scalars, with units and defaults),
 * {@code ParameterSet} (one complete, immutable snapshot: scalars, per-worker ρ, bandwidth
 * overrides, the output-length model), and {@code ParameterStore}, which swaps the active set
 * atomically. Sources (the parameter file, and {@code io.tierroute.selector.kafka.ParameterLoader} which follows the
 * params and control topics) call
 * {@code ParameterStore.activate}; a route reads {@code current()} once.
 */
package io.tierroute.selector.params;
