/** The clairvoyant oracle: true output lengths and exact engine state, as the upper bound. */
package io.tierroute.sim.policy.oracle;
