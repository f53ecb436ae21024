package io.tierroute.selector.scheduling;

/** Why {@link Selector} scores a request: what the attempt may change besides answering. */
enum AttemptKind {
    /** A request has just arrived and nobody is queued: admitted when a worker is eligible. */
    ARRIVAL(true, true, false),
    /** A request has just arrived behind queued ones: scored for its place in the queue, which it joins (not admitted). */
    ARRIVAL_BEHIND_QUEUE(false, true, false),
    /**
     * A request that arrived behind queued ones and found the queue full, tried once more: admitted when a worker is
     * eligible (not refused while one has room); its arrival was counted by the attempt before.
     */
    ARRIVAL_PAST_FULL_QUEUE(true, false, false),
    /** A queued request tried again at a drain: admitted when a worker is eligible. */
    RETRY(true, false, false),
    /** A dry run (a preview, a drain ranking the queue): nothing admitted, nothing drawn from the seeded generator. */
    DRY_RUN(false, false, true);

    /** The chosen worker is admitted to. */
    final boolean admits;
    /** Counts once in the fleet's arrival rate and prefill duty. */
    final boolean arrival;
    /** Must not draw from the seeded generator: that would change the picks of the routes after it. */
    final boolean dryRun;

    AttemptKind(boolean admits, boolean arrival, boolean dryRun) {
        this.admits = admits;
        this.arrival = arrival;
        this.dryRun = dryRun;
    }
}
