/** tierroute's real selector (selector-runtime) as a simulator policy, with default or fitted parameters. */
package io.tierroute.sim.policy.tierroute;
