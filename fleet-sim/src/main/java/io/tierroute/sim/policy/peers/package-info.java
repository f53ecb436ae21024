/**
 * The peer routers of PEERS.md §2–4 as baseline policies, each pinned to the upstream version it
 * reimplements (its {@code version()} names it); this package and its sub-packages own nothing outside
 * themselves and read only what the router they model would see.
 *
 * <h2>File map</h2>
 * <ul>
 *   <li>{@link io.tierroute.sim.policy.peers.PeerPolicies} — registers every peer with the registry.</li>
 *   <li>{@link io.tierroute.sim.policy.peers.Ties} — seeded arg-min / arg-max with random ties.</li>
 *   <li>{@code sglang/} — SGLang model gateway {@code cache_aware}: {@code sglang-cache-aware} (Python CLI
 *       defaults 0.3 / 64 / 1.5), {@code sglang-cache-aware-rust} (0.5 / 32 / 1.1).</li>
 *   <li>{@code dynamo/} — Dynamo KV router: {@code dynamo} (2026, tiered credit), {@code dynamo-2025}
 *       (GPU-only overlap), {@code dynamo-approx} (no KV events, 120 s TTL).</li>
 *   <li>{@code llmd/} — llm-d EPP: {@code llmd-precise} (3:2:2, KV events, gpu 1.0 / cpu 0.8),
 *       {@code llmd-approx} (shipped default, approximate prefix), {@code llmd-tiered-cpu} (GPU and CPU
 *       approximate scorers).</li>
 * </ul>
 * Modelling choices and simplifications are stated in each policy's class comment; requests to the
 * contract's owner are in {@code fleet-sim/PEERS-NOTES.md}.
 */
package io.tierroute.sim.policy.peers;
