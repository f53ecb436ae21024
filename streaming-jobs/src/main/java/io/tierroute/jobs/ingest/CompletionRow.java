package io.tierroute.jobs.ingest;

import io.tierroute.jobs.serde.RowTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/** The fields of a {@code CompletionLog} the join and the fitting need. */
@TypeInfo(RowTypeInfo.OfCompletion.class)
public class CompletionRow {
    public String requestId;
    public String scope;
    public String worker;
    public long finishedTimeMs;
    /** True when the request ended OK and produced a first token. */
    public boolean ok;
    /** Worker-side time to first token: queue wait + tier load + prefill, µs (the regression's y). */
    public long realisedUs;
    /** Prompt tokens served from cache on any tier, tokens. */
    public long cachedTokens;
    public int outputTokens;
    public int partition;
    public long offset;
    // Realised times of the admission wait's fit, µs; -1 = unknown (restored from state written before them).
    public long decodeUs = -1;
    public long queueWaitUs = -1;
    public long prefillUs = -1;

    public CompletionRow() {}
}
