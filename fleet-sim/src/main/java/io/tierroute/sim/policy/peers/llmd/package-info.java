/**
 * llm-d's inference scheduler, the EPP (PEERS.md §4): the precise prefix-cache profile (KV events,
 * tier-weighted), the shipped default with the approximate prefix scorer, and the tiered CPU guide.
 *
 * <ul>
 *   <li>{@link io.tierroute.sim.policy.peers.llmd.LlmdConfig} — weights, refresh period and scorer mode,
 *       one factory per pinned profile.</li>
 *   <li>{@link io.tierroute.sim.policy.peers.llmd.LlmdPolicy} — the scorers, their weighted sum and the
 *       max-score picker; owns the last telemetry sample per worker and the precise index.</li>
 *   <li>{@code ApproxPrefixIndex} — owns the approximate scorer's per-server LRUs of own picks.</li>
 * </ul>
 */
package io.tierroute.sim.policy.peers.llmd;
