package io.tierroute.jobs.fit;

import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.snapshot.ActivationRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.flink.api.common.state.MapState;

/**
 * The current scope's accepted versions, over {@link ScopeFitFunction}'s keyed state: version → control sequence
 * ({@code accepted}), version → snapshot without its model ({@code history}) and each quantile model once, under the
 * version whose record carries it in full on the params topic ({@code forests}). From them and the last control record it answers which version is
 * active, as {@link ActivationRule} says and every reader of the two topics computes.
 */
final class VersionHistory {
    private final MapState<Long, Long> accepted;
    private final MapState<Long, HistoryEntry> history;
    private final MapState<Long, QuantileForestModel> forests;
    private final int keepVersions;
    private final long maxRhoEntries;
    /** The ρ entries a scope's history holds at most by default: ~20 MB (at 900 links, the newest 277 versions). */
    static final long MAX_RHO_ENTRIES = 250_000;
    /** The newest versions kept whatever their ρ: the active one and the one the gate compared it with. */
    static final int MIN_KEPT = 2;

    VersionHistory(MapState<Long, Long> accepted, MapState<Long, HistoryEntry> history,
                   MapState<Long, QuantileForestModel> forests, int keepVersions) {
        this(accepted, history, forests, keepVersions, MAX_RHO_ENTRIES);
    }

    VersionHistory(MapState<Long, Long> accepted, MapState<Long, HistoryEntry> history,
                   MapState<Long, QuantileForestModel> forests, int keepVersions, long maxRhoEntries) {
        this.accepted = accepted;
        this.history = history;
        this.forests = forests;
        this.keepVersions = keepVersions;
        this.maxRhoEntries = maxRhoEntries;
    }

    /** Whether {@code version} is an accepted version still kept (a PIN of any other names nothing to gate against). */
    boolean keeps(long version) throws Exception {
        return accepted.contains(version);
    }

    /** Whether an accepted version stamped with control sequence {@code sequence} or a later one is kept. */
    boolean acceptedSince(long sequence) throws Exception {
        for (Long stamped : accepted.values()) {
            if (stamped >= sequence) {
                return true;
            }
        }
        return false;
    }

    /** The active snapshot, with its model, per {@link ActivationRule} over the kept versions and {@code ctl}; or null. */
    ParameterSnapshot active(String scope, SnapshotControl ctl) throws Exception {
        ActivationRule rule = new ActivationRule();
        for (Map.Entry<Long, Long> e : accepted.entries()) {
            rule.onSnapshot(scope, e.getKey(), SnapshotStatus.ACCEPTED, e.getValue());
        }
        if (ctl != null) {
            rule.onControl(ctl);
        }
        // The job's own history is complete: it stamps what it applied, and a version it adopted from the params topic
        // (active there at submission, or read back for a pin) keeps its stamp while this job's control state may not
        // have that record yet. Nothing here waits for a record still to come: read through at once, as before.
        rule.readThrough(rule.readMark());
        OptionalLong v = rule.activeVersion(scope);
        if (v.isEmpty()) {
            return null;
        }
        HistoryEntry h = history.get(v.getAsLong());
        if (h == null) {
            return null;
        }
        QuantileForestModel model = h.forestVersion == 0 ? null : forests.get(h.forestVersion);
        // the model's carrier as the record names it (state kept before the field existed names none)
        return ParameterSnapshot.newBuilder(h.snapshot).setQuantileModel(model)
            .setQuantileModelVersion(model == null ? null : h.forestVersion).build();
    }

    /**
     * Keeps an accepted snapshot as published (stamped with control {@code sequence}); {@code model} is its quantile
     * model, which the record carries in full or names by {@code quantileModelVersion}. The model is stored once, under
     * that carrying version. True when it is the retrained {@code fresh} one (the caller's pending model is now kept).
     * Then trims to the last versions, keeping the one {@code ctl} names.
     */
    boolean keep(ParameterSnapshot published, QuantileForestModel model, long sequence, QuantileForestModel fresh,
                 SnapshotControl ctl) throws Exception {
        long v = published.getVersion();
        long forestVersion = 0;
        boolean freshKept = false;
        if (model != null && published.getQuantileModelVersion() != null) {
            forestVersion = published.getQuantileModelVersion();
            if (!forests.contains(forestVersion)) {
                forests.put(forestVersion, model);
            }
            freshKept = fresh != null && (model == fresh || model.equals(fresh));
        }
        ParameterSnapshot kept = published;
        if (published.getQuantileModel() != null) {
            kept = ParameterSnapshot.newBuilder(published).setQuantileModel(null).build();
        }
        accepted.put(v, sequence);
        history.put(v, new HistoryEntry(kept, forestVersion));
        trim(v, ctl);
        return freshKept;
    }

    /**
     * Keeps the last {@code keepVersions} accepted versions, plus the one a control record names, and the forests of
     * those versions only. (Forests used to be dropped only below the oldest kept version's: once a pin or an unpin
     * named an old version, which an unpin does for good, that version was the oldest kept and every later forest, up
     * to ~0.5 MB each, stayed in keyed state for ever: ~400 after 2,000 versions, growing every checkpoint.) Fewer when
     * their ρ lists together pass {@code maxRhoEntries} ({@link #overRhoBudget}).
     */
    private void trim(long newest, SnapshotControl ctl) throws Exception {
        long keepFrom = newest - keepVersions + 1;
        Long named = ctl == null ? null : ctl.getVersion();
        List<Long> drop = new ArrayList<>();
        TreeMap<Long, HistoryEntry> kept = new TreeMap<>();
        for (Long k : accepted.keys()) {
            if (k < keepFrom && !k.equals(named)) {
                drop.add(k);
            } else {
                kept.put(k, history.get(k));
            }
        }
        drop.addAll(overRhoBudget(kept, named));
        for (Long k : drop) {
            accepted.remove(k);
            history.remove(k);
            kept.remove(k);
        }
        java.util.Set<Long> used = new java.util.HashSet<>();
        for (HistoryEntry h : kept.values()) {
            if (h != null) {
                used.add(h.forestVersion);
            }
        }
        List<Long> unused = new ArrayList<>();
        for (Long f : forests.keys()) {
            if (!used.contains(f)) {
                unused.add(f);
            }
        }
        for (Long f : unused) {
            forests.remove(f);
        }
    }

    /**
     * The kept versions to drop, newest of them first, so that the ρ entries of the rest stay within
     * {@code maxRhoEntries} (never the newest {@value #MIN_KEPT} nor the one a control record names). A version's ρ is one entry per
     * (worker, tier) link, about 80 bytes, and is what the gate carries a held ρ from: kept 1,000 deep at every link,
     * the history was 80 KB per link per scope at every checkpoint (74 MB at 900 links). A PIN of a version dropped
     * here is read back from the topic ({@link PinnedVersionLookups}), as one older than {@code keepVersions} is.
     */
    private List<Long> overRhoBudget(TreeMap<Long, HistoryEntry> kept, Long named) {
        List<Long> over = new ArrayList<>();
        long entries = 0;
        int seen = 0;
        for (Map.Entry<Long, HistoryEntry> e : kept.descendingMap().entrySet()) {
            HistoryEntry h = e.getValue();
            entries += h == null || h.snapshot.getRho() == null ? 0 : h.snapshot.getRho().size();
            if (++seen > MIN_KEPT && entries > maxRhoEntries && !e.getKey().equals(named)) {
                over.add(e.getKey());
            }
        }
        return over;
    }

    /** The versions whose record carries a kept forest (tests). */
    List<Long> forestVersions() throws Exception {
        List<Long> out = new ArrayList<>();
        forests.keys().forEach(out::add);
        return out;
    }
}
