/**
 * Quantile regression forest (Meinshausen 2006) for output length, trained on Smile and exported as
 * the compact Avro {@code QuantileForestModel} that {@code selector-runtime}'s dependency-free
 * {@code ForestOutputModel} evaluates.
 *
 * <h2>Training</h2>
 * {@link io.tierroute.fitter.forest.QuantileForestTrainer#fit} encodes each {@link
 * io.tierroute.fitter.forest.OutputRow} with {@link io.tierroute.fitter.forest.ForestFeatures} (numeric
 * value or categorical level index, NaN = unknown), replaces NaN by {@code MISSING = 1e12} (above every
 * real value), drops predictors that are constant over the rows, and fits each tree t with
 * {@code smile.regression.RandomForest.fit(formula, df, 1, mtry, maxDepth, maxNodes, nodeSize,
 * subsample, LongStream.of(seed_t))} (seeds drawn from the config seed, all > 1 — Smile ignores a seed
 * ≤ 1 and leaves the thread RNG unseeded; as many single-tree fits at a
 * time as there are cores). One fit per tree because a multi-tree fit is not reproducible: Smile
 * seeds a thread-local RNG per tree inside a parallel stream, and a worker blocked in a tree's inner
 * parallel split search can steal another tree's task, which re-seeds that thread's RNG mid-tree.
 * All Smile columns are doubles, so every split is an {@code OrdinalNode} ({@code x <= value} → true
 * child).
 *
 * <h2>Which leaf each training row falls in</h2>
 * Smile keeps neither its bootstrap nor the rows per leaf, so the trainer recomputes them: the tuple
 * of predictors of every row is {@code formula.x(df).get(i)}; for every tree {@code t} and row {@code i},
 * {@code tree.root().predict(tuple)} walks Smile's own nodes and returns the {@code LeafNode}
 * the row lands in. Targets are grouped per leaf in an {@link java.util.IdentityHashMap} keyed by that
 * node object ({@code RegressionNode} overrides {@code equals} by value, so two distinct leaves with the
 * same output would collide in a {@code HashMap}). Every training row is dropped into every tree — the
 * weights of Meinshausen's paper use all observations, in-bag or not — so {@code leafRows[l]} counts all
 * training rows in the leaf (Smile does not expose which were in-bag); every leaf holds at least its
 * in-bag rows, so none is empty. Trees run in parallel, each with its own map.
 *
 * <h2>Export</h2>
 * Each tree is flattened pre-order into the record's parallel node arrays: an {@code OrdinalNode}
 * gives {@code nodeSplitFeature} (Smile's predictor index mapped back by name to
 * {@code ForestFeatures.NAMES}), {@code nodeThreshold} = its {@code value} (read by reflection: Smile
 * 2.6.0 has no getter), {@code nodeLeft} = true child, {@code nodeRight} = false child. Because
 * unknowns were trained as {@code MISSING}, every threshold is below it and unknown rows went right,
 * which is what the evaluator does with NaN. A {@code LeafNode} gets the next leaf number and its
 * sample: all targets sorted if at most k, else {@code sorted[⌊(i + 0.5)·n/k⌋]}, i = 0..k−1 (ranks
 * (i + 0.5)/k). k = min(config k, ⌊(maxModelBytes/numLeaves − 38)/4⌋), the schema's size rule. After
 * flattening, every training row is re-routed through the flat arrays and must reach the leaf Smile's
 * walk gave, else {@code fit} throws.
 *
 * <h2>Calibration (coverage per quantile)</h2>
 * {@link io.tierroute.fitter.forest.QuantileForestTrainer#fit} holds out a uniform random
 * {@link io.tierroute.fitter.forest.CalibrationConfig#heldOutFraction} (20 %, at most 5 000 rows, drawn
 * reproducibly from the config seed) of the sample, fits a forest with the same config on the rest, and
 * records, per nominal quantile q (0.1 … 0.99), the share of held-out rows whose output length is at
 * most that forest's predicted q-quantile, with the held-out row count. The published forest is then
 * fitted on all rows — bit for bit the forest a fit without calibration gives — so the figure is the
 * usual hold-out estimate for a model refitted on all the data (slightly conservative: it was trained
 * on 80 %). Below 20 held-out rows the list stays empty. Cost: one extra fit on 80 % of the rows plus
 * one multi-quantile prediction per held-out row. The validation gate rejects a record whose
 * calibration has a quantile outside (0, 1) or not ascending, a coverage outside [0, 1] or rows &lt; 0
 * ({@link io.tierroute.fitter.forest.ForestCalibration#problems}).
 *
 * <h2>Prediction</h2>
 * For x, each tree's reached leaf l contributes its k_l values with weight 1/(T·k_l); the q-quantile is
 * the smallest value whose cumulative weight (ascending) reaches q (to within {@code 1e-9/T}, so exact
 * ties do not depend on summation order). {@link io.tierroute.fitter.forest.QuantileForest#predict}
 * does this via Smile's nodes; the selector's evaluator via the record's arrays.
 */
package io.tierroute.fitter.forest;
