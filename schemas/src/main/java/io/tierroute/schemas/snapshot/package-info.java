/**
 * The snapshot life cycle's shared rules: which version of a scope is active given the params and
 * control topics ({@link io.tierroute.schemas.snapshot.ActivationRule}), which control records count
 * ({@link io.tierroute.schemas.snapshot.ControlRecordCheck}), the physical bounds of every
 * parameter ({@link io.tierroute.schemas.snapshot.SnapshotParameter}), whether a value was ever fitted
 * ({@link io.tierroute.schemas.snapshot.FittedProvenance}), and whether a quantile forest is one the selector can
 * walk ({@link io.tierroute.schemas.snapshot.ForestStructure}). The streaming job, the fitter's
 * gate, the selector's loader, the CLI and the dashboard all use them, so they cannot disagree.
 */
package io.tierroute.schemas.snapshot;
