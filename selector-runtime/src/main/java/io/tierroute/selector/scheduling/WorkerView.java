package io.tierroute.selector.scheduling;

import io.tierroute.selector.sequences.LoadView;

/** One worker as {@code GET /v1/workers} shows it. */
public record WorkerView(String name, int index, boolean healthy, boolean draining, boolean approximate,
                         LoadView load) {}
