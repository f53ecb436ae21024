/** Floor baselines of PEERS.md §1: round robin, random, least loaded (the router's own in-flight count). */
package io.tierroute.sim.policy.baseline;
