package io.tierroute.dashboards.web;

import io.tierroute.dashboards.history.Fitted;
import io.tierroute.dashboards.history.ParameterNames;
import io.tierroute.dashboards.history.ScopeState;
import io.tierroute.dashboards.history.SnapshotHistory;
import io.tierroute.dashboards.history.VersionRecord;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.WorkerTierRho;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeSet;

/** The JSON shapes of the read endpoints, built from a {@link SnapshotHistory} (plain maps and lists). */
final class HistoryViews {

    private final SnapshotHistory history;

    HistoryViews(SnapshotHistory history) {
        this.history = history;
    }

    /**
     * The scope's state; a scope not (yet) seen is 503 while the history is still being read (Kafka slow or unreachable:
     * it may be on the topic) and 404 once the reader has caught up.
     */
    ScopeState scope(String scope) {
        return history.scope(scope).orElseThrow(() -> history.ready()
                ? new HttpError(404, "unknown scope '" + scope + "'; known: " + history.scopes())
                : new HttpError(503, "the dashboard has not read the snapshot history yet (is Kafka reachable?); "
                        + "scope '" + scope + "' may be on it: try again in a moment"));
    }

    /** Every scope with its active and pinned version (the status line). */
    List<Map<String, Object>> scopes() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (String s : history.scopes()) {
            history.scope(s).ifPresent(st -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("scope", s);
                m.put("activeVersion", st.activeVersion());
                m.put("servedVersion", st.servedVersion());
                m.put("pinned", st.pinned());
                m.put("pinnedVersion", st.pinnedVersion());
                m.put("controlSequence", st.controlSequence());
                m.put("versions", st.versions().size());
                m.put("latestVersion", st.versions().isEmpty() ? null : st.versions().get(st.versions().size() - 1).version());
                out.add(m);
            });
        }
        return out;
    }

    /**
     * The most versions one read of {@code versions} or {@code timelines} covers. The history holds up to
     * {@link io.tierroute.dashboards.history.SnapshotHistory#DEFAULT_MAX_VERSIONS}; the timelines of all 10,000 were
     * 27 MB of JSON and ~100 MB of heap per read, and reads need no token by default.
     */
    static final int MAX_PER_READ = 1000;

    /**
     * The newest {@code last} versions of a scope, newest first, with status, reasons and the active / pinned markers
     * (the page asks for a window: the whole history grows ~1 KB a version).
     */
    Map<String, Object> versions(String scope, int last) {
        ScopeState st = scope(scope);
        List<Map<String, Object>> rows = new ArrayList<>();
        int oldest = Math.max(0, st.versions().size() - last);
        for (int i = st.versions().size() - 1; i >= oldest; i--) {
            VersionRecord r = st.versions().get(i);
            Map<String, Object> m = header(r);
            m.put("active", st.activeVersion() != null && st.activeVersion() == r.version());
            m.put("served", st.isServed(r.version()));
            m.put("pinned", st.pinned() && st.pinnedVersion() != null && st.pinnedVersion() == r.version());
            rows.add(m);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("scope", scope);
        out.put("activeVersion", st.activeVersion());
        out.put("servedVersion", st.servedVersion());
        out.put("pinned", st.pinned());
        out.put("pinnedVersion", st.pinnedVersion());
        out.put("controlSequence", st.controlSequence());
        out.put("controls", st.controls());
        out.put("total", st.versions().size());
        out.put("maxPerRead", MAX_PER_READ);
        out.put("versions", rows);
        return out;
    }

    /** One version in full: every parameter with its evidence, ρ when the snapshot is still held in full. */
    Map<String, Object> version(String scope, long version) {
        scope(scope);
        VersionRecord r = history.version(scope, version).orElseThrow(() -> new HttpError(404, "version " + version
                + " of scope '" + scope + "' is not in the history"));
        Map<String, Object> m = header(r);
        Map<String, Object> params = new LinkedHashMap<>();
        r.params().forEach((name, f) -> params.put(name, fitted(name, f)));
        m.put("params", params);
        Optional<ParameterSnapshot> full = history.fullSnapshot(scope, version);
        m.put("rhoRetained", full.isPresent());
        m.put("rho", full.map(HistoryViews::rhoCells).orElse(null));
        m.put("activeVersion", boxed(history.activeVersion(scope)));
        m.put("servedVersion", boxed(history.servedVersion(scope)));
        return m;
    }

    /**
     * Per fitted parameter over the newest {@code last} versions: one point per version (oldest first) with value,
     * samples, quality, window, status.
     */
    Map<String, Object> timelines(String scope, int last) {
        ScopeState st = scope(scope);
        Map<String, Map<String, Object>> params = new LinkedHashMap<>();
        List<VersionRecord> all = st.versions();
        for (VersionRecord r : all.subList(Math.max(0, all.size() - last), all.size())) {
            r.params().forEach((name, f) -> {
                Map<String, Object> p = params.computeIfAbsent(name, n -> {
                    Map<String, Object> x = new LinkedHashMap<>();
                    x.put("unit", ParameterNames.unit(n));
                    x.put("points", new ArrayList<Map<String, Object>>());
                    return x;
                });
                Map<String, Object> pt = fitted(name, f);
                pt.remove("unit");
                pt.put("version", r.version());
                pt.put("createdAtMs", r.createdAtMs());
                pt.put("status", r.status());
                @SuppressWarnings("unchecked")
                List<Map<String, Object>> pts = (List<Map<String, Object>>) p.get("points");
                pts.add(pt);
            });
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("scope", scope);
        out.put("activeVersion", st.activeVersion());
        out.put("servedVersion", st.servedVersion());
        out.put("pinnedVersion", st.pinnedVersion());
        out.put("total", all.size());
        out.put("params", params);
        return out;
    }

    /** ρ_t per worker and tier of the latest snapshot held in full. */
    Map<String, Object> rho(String scope) {
        ScopeState st = scope(scope);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("scope", scope);
        Optional<ParameterSnapshot> s = history.latestFullSnapshot(scope);
        out.put("version", s.map(ParameterSnapshot::getVersion).orElse(null));
        out.put("status", s.map(x -> x.getStatus().name()).orElse(null));
        out.put("activeVersion", st.activeVersion());
        out.put("servedVersion", st.servedVersion());
        List<Map<String, Object>> cells = s.map(HistoryViews::rhoCells).orElse(List.of());
        TreeSet<String> workers = new TreeSet<>();
        TreeSet<String> tiers = new TreeSet<>();
        for (Map<String, Object> c : cells) {
            workers.add((String) c.get("worker"));
            tiers.add((String) c.get("tier"));
        }
        out.put("workers", new ArrayList<>(workers));
        out.put("tiers", new ArrayList<>(tiers));
        out.put("cells", cells);
        return out;
    }

    private static List<Map<String, Object>> rhoCells(ParameterSnapshot s) {
        List<Map<String, Object>> cells = new ArrayList<>();
        for (WorkerTierRho r : s.getRho()) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("worker", r.getWorker());
            c.put("tier", r.getTier().name());
            c.put("rho", r.getRho().getValue());
            c.put("samples", r.getRho().getSamples());
            c.put("quality", r.getRho().getQuality());
            c.put("qualityKind", r.getRho().getQualityKind().name());
            if (r.getReferenceBytesPerSecond() != null) { // a link measured against its own fastest rate, not BW_t
                c.put("referenceBytesPerSecond", r.getReferenceBytesPerSecond());
            }
            cells.add(c);
        }
        return cells;
    }

    private static Map<String, Object> header(VersionRecord r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("scope", r.scope());
        m.put("version", r.version());
        m.put("parentVersion", r.parentVersion());
        m.put("producer", r.producer());
        m.put("createdAtMs", r.createdAtMs());
        m.put("status", r.status());
        m.put("rejectReasons", r.rejectReasons());
        m.put("controlSequence", r.controlSequence());
        m.put("rhoPairs", r.rhoPairs());
        m.put("forest", r.forest());
        m.put("forestVersion", r.forestVersion());
        m.put("unusable", r.unusable());
        return m;
    }

    private static Long boxed(OptionalLong v) {
        return v.isPresent() ? v.getAsLong() : null;
    }

    private static Map<String, Object> fitted(String name, Fitted f) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("value", f.value());
        m.put("unit", ParameterNames.unit(name));
        m.put("samples", f.samples());
        m.put("quality", f.quality());
        m.put("qualityKind", f.qualityKind());
        m.put("stdError", f.stdError());
        m.put("windowStartMs", f.windowStartMs());
        m.put("windowEndMs", f.windowEndMs());
        return m;
    }
}
