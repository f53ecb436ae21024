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
 *       admission queue ({@code AdmissionQueue}, ordered by {@code min_w Cost + g·t_arrival}: cheapest first, aged by
 *       the wait; a request waiting past {@code routing.queueOverdueAfter} placed first, {@code QueueDrain}) and the agent
 *       trackers ({@code WorkflowAffinity} for {@code B_wf}, {@code ToolAffinity} for {@code B_tools}).
 *       One attempt ({@code AttemptKind}: an arrival, a queued request's retry, a dry run) leaves what it found
 *       about every candidate in {@code AttemptScratch} (per thread).</li>
 *   <li>{@code QueueDrain}: places queued requests when capacity frees: the one cheapest now among the first few,
 *       then down the queue past those waiting for a busy worker.</li>
 *   <li>{@code LateBinding}: when a request is held in the queue instead of joining a busy worker's queue, and the
 *       drain's quick checks; {@code SilentWorkers}: which workers have been silent while requests wait there (a hung
 *       engine), for the cheapest-worker hold to pass over.</li>
 *   <li>{@code WorkerStatus} (healthy, draining) and {@code LoadLimits} (maxInFlight, maxWaiting): the hard filters;
 *       {@code LightLoadSpread}: at light load, the workers far busier than the least-loaded leave the pick.</li>
 *   <li>{@code Explanations}: why a candidate left the pick (explain), why a route was refused or would wait.</li>
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
