/**
 * The routing-policy contract of the simulator: {@link io.tierroute.sim.policy.RoutingPolicy} and the
 * vocabulary it speaks ({@link io.tierroute.sim.policy.SimRequest}, {@link io.tierroute.sim.policy.FleetView},
 * {@link io.tierroute.sim.policy.WorkerTelemetry}, {@link io.tierroute.sim.policy.Completion},
 * selector-runtime's {@code KvEvent}), and the explicit {@link io.tierroute.sim.policy.PolicyRegistry}.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li><b>One thread, virtual time.</b> The simulator calls a policy from one thread in virtual-time
 *       order; {@code nowMicros} never decreases. A policy instance serves one run, so no locks.</li>
 *   <li><b>Determinism.</b> All randomness derives from {@link io.tierroute.sim.policy.PolicySetup#seed()};
 *       no wall clock, no iteration over identity-hashed collections when order matters.</li>
 *   <li><b>Honest information.</b> A policy sees what the router it models sees in production: the
 *       fleet's configuration ({@code FleetView}), KV events (workers are dense indices, tiers as in
 *       {@code Tier}), periodic telemetry at the period it asks for, and its own requests' lifecycle
 *       (routed, first token, finished). {@code SimRequest.trueOutputTokensForOracleOnly()} and
 *       {@code FleetView.oracle()} are for the oracle only.</li>
 *   <li><b>Versions.</b> {@code version()} names the upstream release a baseline reimplements
 *       (PEERS.md pins them); reports print it.</li>
 * </ul>
 *
 * <h2>Packages</h2>
 * {@code baseline} (round robin, random, least loaded), {@code peers} (PEERS.md §2–4, registered by
 * {@code PeerPolicies.register}), {@code tierroute} (the real selector), {@code oracle} (clairvoyant bound).
 */
package io.tierroute.sim.policy;
