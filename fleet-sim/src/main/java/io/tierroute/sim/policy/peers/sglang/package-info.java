/**
 * SGLang model gateway's {@code cache_aware} router (PEERS.md §2).
 *
 * <ul>
 *   <li>{@link io.tierroute.sim.policy.peers.sglang.RadixTree} — the shared character-level radix tree
 *       with per-node tenants and access times, prefix match, insert and per-tenant LRU eviction; it owns
 *       all cache state of the policy.</li>
 *   <li>{@link io.tierroute.sim.policy.peers.sglang.CacheAwareConfig} — thresholds, with the two pinned
 *       default sets (Python CLI, Rust).</li>
 *   <li>{@link io.tierroute.sim.policy.peers.sglang.CacheAwarePolicy} — the balance check and the
 *       cache/load decision; owns the in-flight counts.</li>
 * </ul>
 */
package io.tierroute.sim.policy.peers.sglang;
