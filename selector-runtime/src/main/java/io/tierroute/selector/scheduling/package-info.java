/**
 * Scheduling: from a request and the index's answer to a chosen worker.
 *
 * <p>File map:
 * <ul>
 *   <li>{@code CostModel}: DESIGN.md §3, one method per term; fills {@code CostTerms} (mutable, per
 *       thread) which becomes an immutable {@code CostBreakdown} on the decision.</li>
 *   <li>{@code PromptLookup}: prompt → chained block hashes → index match, hashed in stages only as
 *       deep as some worker still matches (per thread); {@code PromptHashes}, a queued request's hashes
 *       kept with it, so the drains that try it again do not hash it again.</li>
 *   <li>{@code RouteContext}: the request-level inputs shared by every candidate.</li>
 *   <li>{@code Picker}: argmin with random ties, softmax over min-max normalised costs, ε exploration.</li>
 *   <li>{@code Selector}: the facade: lookup → score → filter → pick → admit; owns the
 *       admission queue ({@code AdmissionQueue}, priority {@code 1 / min_w Cost}) and the agent
 *       trackers ({@code WorkflowAffinity} for {@code B_wf}, {@code ToolAffinity} for {@code B_tools}).</li>
 *   <li>{@code SilentWorkers}: which workers have been silent while requests wait there (a hung engine), for the
 *       cheapest-worker hold to pass over.</li>
 *   <li>{@code SelectorSettings}, {@code WorkerSpec}: configuration, validated on construction.</li>
 *   <li>{@code UnpricedTiers}: counts KV events (both paths) that put blocks on a tier the worker is configured
 *       without, which the cost model never prices; logs the first per worker and tier.</li>
 *   <li>{@code RouteRequest}, {@code RouteDecision}: the API's vocabulary.</li>
 * </ul>
 *
 * <p>Ownership: the selector owns nothing authoritative but its own in-flight requests (in
 * {@code sequences}); the index, the parameters and the telemetry are derived from topics every
 * replica reads (DESIGN.md §1).
 */
package io.tierroute.selector.scheduling;
