package io.tierroute.selector.scheduling;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Everything the selector is configured with (the config file maps onto it). Build with
 * {@link #builder(List)}; every option has a default that works.
 */
public record SelectorSettings(
        List<WorkerSpec> workers,
        String model,
        int blockSize,
        double bytesPerToken,
        int textCharsPerBlock,
        int defaultMaxTokens,
        double temperature,
        double explorationEpsilon,
        Duration approximateTtl,
        boolean computingClaims,
        Duration computingClaimTtl,
        Duration requestMaxAge,
        Duration telemetryMaxAge,
        Duration workflowMaxAge,
        int maxWorkflows,
        Duration toolWarmTime,
        int maxQueued,
        Duration maxQueueWait,
        double queueAgeWeight,
        Duration queueOverdueAfter,
        int holdAtWaiting,
        int holdAtCheapestWaiting,
        Duration holdAtCheapestSilentAfter,
        int spreadWithin,
        boolean ownKvAccounting,
        Long seed) {

    public SelectorSettings {
        workers = List.copyOf(workers);
        if (workers.isEmpty()) {
            throw new IllegalArgumentException("workers: at least one worker is required");
        }
        Objects.requireNonNull(model, "model");
        if (blockSize <= 0) throw new IllegalArgumentException("blockSize must be > 0, got " + blockSize);
        if (!(bytesPerToken > 0 && Double.isFinite(bytesPerToken))) {
            throw new IllegalArgumentException("bytesPerToken must be > 0, got " + bytesPerToken);
        }
        if (textCharsPerBlock <= 0) throw new IllegalArgumentException("textCharsPerBlock must be > 0");
        if (defaultMaxTokens <= 0) throw new IllegalArgumentException("defaultMaxTokens must be > 0");
        if (maxQueued < 0) throw new IllegalArgumentException("maxQueued must be ≥ 0");
        if (!(queueAgeWeight >= 0 && queueAgeWeight <= MAX_QUEUE_AGE_WEIGHT)) {
            throw new IllegalArgumentException("queueAgeWeight must be in [0, " + (long) MAX_QUEUE_AGE_WEIGHT
                    + "], got " + queueAgeWeight);
        }
        if (holdAtWaiting < 0) throw new IllegalArgumentException("holdAtWaiting must be ≥ 0, got " + holdAtWaiting);
        if (holdAtCheapestWaiting < 0) {
            throw new IllegalArgumentException("holdAtCheapestWaiting must be ≥ 0, got " + holdAtCheapestWaiting);
        }
        String holding = holdingWithoutQueue(holdAtWaiting, holdAtCheapestWaiting, maxQueued);
        if (holding != null) {
            throw new IllegalArgumentException(holding + " " + (holdAtWaiting > 0 ? holdAtWaiting : holdAtCheapestWaiting)
                    + heldButNoQueue("maxQueued"));
        }
        if (queueOverdueAfter.isNegative() || queueOverdueAfter.compareTo(MAX_OVERDUE_AFTER) > 0) {
            throw new IllegalArgumentException("queueOverdueAfter must be in [0, " + MAX_OVERDUE_AFTER.toDays()
                    + " days] (0: never), got " + queueOverdueAfter);
        }
        if (holdAtCheapestSilentAfter.isNegative()) {
            throw new IllegalArgumentException("holdAtCheapestSilentAfter must be ≥ 0 (0: never), got "
                    + holdAtCheapestSilentAfter);
        }
        if (spreadWithin < 0) {
            throw new IllegalArgumentException("spreadWithin must be ≥ 0 (0: off), got " + spreadWithin);
        }
        if (maxWorkflows <= 0) throw new IllegalArgumentException("maxWorkflows must be > 0");
        for (Duration d : List.of(approximateTtl, computingClaimTtl, requestMaxAge, telemetryMaxAge, workflowMaxAge, toolWarmTime, maxQueueWait)) {
            if (d.isNegative() || d.isZero()) throw new IllegalArgumentException("durations must be > 0, got " + d);
        }
        new Picker(temperature, explorationEpsilon); // validates both
    }

    public static Builder builder(List<WorkerSpec> workers) {
        return new Builder(workers);
    }

    /**
     * Which hold ({@code holdAtWaiting}, else {@code holdAtCheapestWaiting}) keeps requests in an admission queue that
     * {@code maxQueued} 0 turns off, or null when none does; a config file names it by its own key path.
     */
    public static String holdingWithoutQueue(int holdAtWaiting, int holdAtCheapestWaiting, int maxQueued) {
        if (maxQueued != 0) {
            return null;
        }
        return holdAtWaiting > 0 ? "holdAtWaiting" : holdAtCheapestWaiting > 0 ? "holdAtCheapestWaiting" : null;
    }

    /** The rest of the refusal of a hold without a queue, after the hold's name and value. */
    public static String heldButNoQueue(String maxQueuedName) {
        return " holds requests in the admission queue, which " + maxQueuedName
                + " 0 turns off: every held request would be refused";
    }

    /** {@link Builder#spreadWithin}'s default, requests. */
    public static final int SPREAD_WITHIN = 4;

    /** {@link Builder#queueOverdueAfter}'s default, s. */
    public static final int OVERDUE_AFTER_SECONDS = 15;
    /** The longest {@link Builder#queueOverdueAfter} (it is held in ns). */
    public static final Duration MAX_OVERDUE_AFTER = Duration.ofDays(365);

    /** The largest {@link Builder#queueAgeWeight}: near it the queue is all but first come, first served. */
    public static final double MAX_QUEUE_AGE_WEIGHT = 1_000;

    /** Characters per token of English text under common BPE tokenizers: how a text prompt's length is estimated. */
    public static final int CHARS_PER_TOKEN = 4;

    /** The text chunk that stands for one block when none is configured: a block's tokens at {@link #CHARS_PER_TOKEN}. */
    public static int defaultTextCharsPerBlock(int blockSize) {
        return (int) Math.min((long) CHARS_PER_TOKEN * blockSize, 1 << 20);
    }

    public static final class Builder {
        private final List<WorkerSpec> workers;
        private String model = "default";
        private int blockSize = 16;
        private double bytesPerToken = 256 * 1024; // Qwen3-32B: 64 layers × 8 KV heads × 128 × 2 (K,V) × 2 bytes
        private Integer textCharsPerBlock;         // unset: CHARS_PER_TOKEN × blockSize
        private int defaultMaxTokens = 1024;
        private double temperature = 0;
        private double explorationEpsilon = 0;
        private Duration approximateTtl = Duration.ofSeconds(120);
        private boolean computingClaims = false;
        private Duration computingClaimTtl = Duration.ofSeconds(120);
        private Duration requestMaxAge = Duration.ofMinutes(10);
        private Duration telemetryMaxAge = Duration.ofSeconds(5);
        private Duration workflowMaxAge = Duration.ofHours(1);
        private int maxWorkflows = 1_000_000;
        private Duration toolWarmTime = Duration.ofMinutes(5);
        private int maxQueued = 10_000;
        private Duration maxQueueWait = Duration.ofSeconds(30);
        private double queueAgeWeight = 0.3;
        private Duration queueOverdueAfter = Duration.ofSeconds(OVERDUE_AFTER_SECONDS);
        private int holdAtWaiting = 0;
        private int holdAtCheapestWaiting = 0;
        private Duration holdAtCheapestSilentAfter = Duration.ofSeconds(10);
        private int spreadWithin = SPREAD_WITHIN;
        private boolean ownKvAccounting = false;
        private Long seed;

        private Builder(List<WorkerSpec> workers) {
            this.workers = workers;
        }

        public Builder model(String v) { model = v; return this; }
        public Builder blockSize(int v) { blockSize = v; return this; }
        public Builder bytesPerToken(double v) { bytesPerToken = v; return this; }
        public Builder textCharsPerBlock(int v) { textCharsPerBlock = v; return this; }
        public Builder defaultMaxTokens(int v) { defaultMaxTokens = v; return this; }
        public Builder temperature(double v) { temperature = v; return this; }
        public Builder explorationEpsilon(double v) { explorationEpsilon = v; return this; }
        public Builder approximateTtl(Duration v) { approximateTtl = v; return this; }
        /**
         * Whether an event-mode worker's index shows, from the moment of routing, the prompt blocks it was sent to
         * compute (an approximate HBM entry per block until the engine reports the block Removed or Moved out of HBM,
         * the worker Cleared, or {@code computingClaimTtl} passes; a Stored event leaves it), so that a repeat of a
         * prefix still being computed follows it instead of being placed by load (see Selector#claimComputing). A
         * request that fails before its prefill leaves its claim until the TTL.
         */
        public Builder computingClaims(boolean v) { computingClaims = v; return this; }
        public Builder computingClaimTtl(Duration v) { computingClaimTtl = v; return this; }
        public Builder requestMaxAge(Duration v) { requestMaxAge = v; return this; }
        public Builder telemetryMaxAge(Duration v) { telemetryMaxAge = v; return this; }
        public Builder workflowMaxAge(Duration v) { workflowMaxAge = v; return this; }
        public Builder maxWorkflows(int v) { maxWorkflows = v; return this; }
        public Builder toolWarmTime(Duration v) { toolWarmTime = v; return this; }
        public Builder maxQueued(int v) { maxQueued = v; return this; }
        public Builder maxQueueWait(Duration v) { maxQueueWait = v; return this; }
        /**
         * How much a waiting request's wait counts against its cost in the admission queue (µs of cost per µs waited;
         * {@link AdmissionQueue}): the queue is served by cost at arrival + weight × arrival time, an earliest deadline,
         * and a drain ranks the requests it scores again by their cost now − weight × their wait. 0: cheapest first
         * (WSPT), where an expensive request may wait until {@link #maxQueueWait} while cheaper ones keep arriving; at
         * 0.3 (the default) a request q arriving after r is ordered ahead of r only if it arrives less than
         * (cost(r) − cost(q)) / 0.3 after r. fleet-sim/experiments/ROUNDS.md, "Ageing round", measured 0.3, 1 and 3
         * against 0.
         */
        public Builder queueAgeWeight(double v) { queueAgeWeight = v; return this; }
        /**
         * How long a request may wait in the admission queue before it is overdue: a drain then places the overdue
         * requests it can place now before any other, the longest-waiting first (of the first 16 to arrive), whatever
         * their cost (0: never). The cost order, even aged by {@link #queueAgeWeight}, lets an expensive request wait as
         * long as (its cost − a later arrival's) / weight, which under overload is minutes (a long prompt where every
         * worker has a long queue); this ends that wait once a worker it can go to has room. It does not make one go
         * where it cannot: a request held for its cheapest worker ({@link #holdAtCheapestWaiting}) or too large for
         * every free worker still waits for that, until {@link #maxQueueWait}. At or above {@code maxQueueWait} it never
         * acts. fleet-sim/experiments/ROUNDS.md, "Overdue round", measured 5, 10, 15 and 20 s.
         */
        public Builder queueOverdueAfter(Duration v) { queueOverdueAfter = v; return this; }
        /**
         * Late binding across the fleet: a request waits in the admission queue while every worker that could take it
         * has at least {@code v} of this selector's requests waiting for their first token, and is then scored over all
         * of them, the cheapest at that moment first (0: off). Needs the first-token events. A soft bound under
         * concurrent routes; an expensive request waits behind cheaper ones only as long as {@link #queueAgeWeight} lets it.
         */
        public Builder holdAtWaiting(int v) { holdAtWaiting = v; return this; }
        /**
         * Late binding to the cheapest worker: a request is never bound to a worker that has {@code v} of this
         * selector's requests waiting for their first token; while its cheapest worker has that many, it waits in the
         * admission queue, scored again at each drain (it goes there once it has room, or elsewhere once another is
         * cheaper), the cheapest at that moment first (0: off). Needs the first-token events, as {@link #holdAtWaiting}.
         */
        public Builder holdAtCheapestWaiting(int v) { holdAtCheapestWaiting = v; return this; }
        /**
         * Under {@link #holdAtCheapestWaiting}: a worker where this selector's requests wait for their first token, and
         * that has shown no work for this long, nor since the first of those waiting was admitted, is silent: nothing is
         * held for it or bound to it until it works again (0: never). Work is output of this selector's requests there
         * (a first token, tokens, a finish after output) or a telemetry sample that reports prefill tokens or decode
         * steps since the previous one. A hung engine that still passes its health checks would otherwise keep every
         * request cheapest there until {@link #maxQueueWait} refuses it while other workers have room. Where telemetry
         * reports no work counters, only this selector's requests count, so a live worker can look silent too: one
         * prompt that takes longer to prefill, or a queue other replicas fill while this one's requests there only
         * wait; its requests then go to the next-cheapest worker. Post the counters, or raise it where such waits are
         * normal; at or above {@code maxQueueWait} it never acts.
         */
        public Builder holdAtCheapestSilentAfter(Duration v) { holdAtCheapestSilentAfter = v; return this; }
        /**
         * Light-load spread: while the fleet is lightly loaded (D̄, an EWMA of the share of workers with a request
         * waiting for its first token, at most 0.1), a worker with more than {@code v} requests in flight beyond the
         * least-loaded candidate (this selector's, or the engine's count if larger: other replicas fill the batch too)
         * leaves the pick, unless it is 100 ms cheaper than every candidate within {@code v} (a large hit). At light
         * load a request's completion is mostly its decode, which a fuller batch slows (0: off).
         */
        public Builder spreadWithin(int v) { spreadWithin = v; return this; }
        /**
         * {@code KV_used} from this selector's own requests (their KV demand, queued ones included) instead of the
         * engine's sampled usage plus what was sent since ({@code InFlightTracker.ownKvAccounting}): right only when
         * this selector routes everything its workers serve (one replica). Default off.
         */
        public Builder ownKvAccounting(boolean v) { ownKvAccounting = v; return this; }
        /** A seed makes ties and softmax picks reproducible (simulator, tests); null = per-thread randomness. */
        public Builder seed(Long v) { seed = v; return this; }

        public SelectorSettings build() {
            return new SelectorSettings(workers, model, blockSize, bytesPerToken,
                    textCharsPerBlock != null ? textCharsPerBlock : defaultTextCharsPerBlock(blockSize),
                    defaultMaxTokens, temperature, explorationEpsilon, approximateTtl, computingClaims,
                    computingClaimTtl, requestMaxAge,
                    telemetryMaxAge, workflowMaxAge, maxWorkflows, toolWarmTime, maxQueued, maxQueueWait, queueAgeWeight, queueOverdueAfter,
                    holdAtWaiting,
                    holdAtCheapestWaiting, holdAtCheapestSilentAfter, spreadWithin, ownKvAccounting, seed);
        }
    }
}
