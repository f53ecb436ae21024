/**
 * The snapshot life cycle's one shared rule: which version of a scope is active given the params
 * and control topics ({@link io.tierroute.schemas.snapshot.ActivationRule}). The streaming job,
 * the selector's loader, the CLI and the dashboard all use it, so they cannot disagree.
 */
package io.tierroute.schemas.snapshot;
