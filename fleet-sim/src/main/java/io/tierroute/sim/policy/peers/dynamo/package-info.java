/**
 * NVIDIA Dynamo's KV router (PEERS.md §3): the 2026 default selector (v1.6.0) with tiered overlap credit, the
 * pinned 2025 form (GPU-only overlap), and the approximate mode without KV events.
 *
 * <ul>
 *   <li>{@link io.tierroute.sim.policy.peers.dynamo.DynamoConfig} — weights and mode, one factory per
 *       pinned variant.</li>
 *   <li>{@link io.tierroute.sim.policy.peers.dynamo.DynamoPolicy} — the cost (logit) and the picker;
 *       owns the block index (selector-runtime's {@code RunPrefixIndex}, fed by KV events or by its own
 *       decisions with a TTL).</li>
 *   <li>{@code ActiveSequences} — owns the router's in-flight bookkeeping: active prefill tokens until
 *       first token, active blocks (shared blocks counted once) until finish.</li>
 * </ul>
 */
package io.tierroute.sim.policy.peers.dynamo;
