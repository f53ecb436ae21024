package io.tierroute.jobs.fit;

import io.tierroute.schemas.avro.ParameterSnapshot;

/**
 * An accepted snapshot as the fitting operator keeps it (to gate against it when it is active, e.g.
 * pinned): the snapshot without its quantile model, and the version whose model it carries (0 =
 * none). Models are kept once per version that introduced them, not once per snapshot.
 */
public class HistoryEntry {
    public ParameterSnapshot snapshot;
    public long forestVersion;

    public HistoryEntry() {}

    public HistoryEntry(ParameterSnapshot snapshot, long forestVersion) {
        this.snapshot = snapshot;
        this.forestVersion = forestVersion;
    }
}
