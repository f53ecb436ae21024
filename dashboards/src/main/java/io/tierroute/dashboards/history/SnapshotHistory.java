package io.tierroute.dashboards.history;

import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.snapshot.ActivationRule;
import io.tierroute.schemas.snapshot.ModelCarrier;
import io.tierroute.schemas.snapshot.ReadThrough;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiPredicate;

/**
 * The snapshot history of every scope, as read from {@code tierroute.params} and
 * {@code tierroute.control} by a {@link HistoryReader}, with {@link ActivationRule} deciding which
 * version is active. Thread-safe: one reader thread writes, any thread queries (every method is
 * synchronized and returns immutable values).
 *
 * <p><b>Bounded memory.</b> Per scope it keeps a {@link VersionRecord} (identity, status, reasons,
 * the fitted scalars: about 1.5 KB) for the {@code maxVersions} highest versions, the full
 * {@link ParameterSnapshot} (ρ per worker, the quantile forest) only for the {@code fullSnapshots}
 * highest versions, and the last {@value #CONTROL_ENTRIES} control records. A snapshot that names the record carrying
 * its forest ({@link ModelCarrier}) is given that forest when the history holds it (the newest carrier's, and those
 * of the full snapshots); otherwise its record shows the carrier's forest summary. Beyond the window it keeps the
 * versions of the newest {@code maxVersions} records read that carried a forest (a later record may name any of them,
 * and one naming a version never read carrying one is unusable) and the ACCEPTED versions selectors cannot use (at most
 * {@code maxVersions}: which one they serve skips those). The rule itself keeps one
 * small entry per accepted version (see its documentation). A one-shot reader that is asked about particular versions
 * (the CLI's {@code snapshots show 12}) names them with {@code alsoKeep}: their records are kept below the window.
 *
 * <p>The rule may hold back a snapshot read ahead of its control record (see {@link ActivationRule}); its reader reads
 * both topics through while that is so ({@link ReadThrough}, through this history as its {@link ReadThrough.Subject}).
 */
public final class SnapshotHistory implements ReadThrough.Subject {

    /** Versions kept per scope by default (DESIGN.md §5 asks for at least 1000). */
    public static final int DEFAULT_MAX_VERSIONS = 10_000;
    /** Full snapshots kept per scope by default. */
    public static final int DEFAULT_FULL_SNAPSHOTS = 3;
    static final int CONTROL_ENTRIES = 50;

    private final int maxVersions;
    private final int fullSnapshots;
    private final BiPredicate<String, Long> alsoKeep;
    private ActivationRule rule = new ActivationRule();
    private final Map<String, Scope> scopes = new TreeMap<>();
    private long revision;
    private boolean ready;
    /** The params partition's next offset to read (the reader's position after its last poll). */
    private long paramsPosition;

    private static final class Scope {
        final TreeMap<Long, VersionRecord> versions = new TreeMap<>();
        final TreeMap<Long, ParameterSnapshot> full = new TreeMap<>();
        final TreeMap<Long, QuantileForestModel> models = new TreeMap<>(); // carrier version → its forest
        /**
         * The versions of the newest {@code maxVersions} records read that carried a forest (a record naming one below
         * them is taken to name one that did): a reference to a version never read carrying one is one no selector
         * can resolve.
         */
        final TreeSet<Long> carriers = new TreeSet<>();
        /** The highest carrier dropped from {@link #carriers} by its bound (Long.MIN_VALUE: none). */
        long carriersBelow = Long.MIN_VALUE;
        /** Why each ACCEPTED version below the window that selectors cannot use is so (rare: kept beyond it). */
        final TreeMap<Long, String> unusableBelowWindow = new TreeMap<>();
        final Deque<ScopeState.ControlEntry> controls = new ArrayDeque<>();
    }

    public SnapshotHistory() {
        this(DEFAULT_MAX_VERSIONS, DEFAULT_FULL_SNAPSHOTS);
    }

    public SnapshotHistory(int maxVersions, int fullSnapshots) {
        this(maxVersions, fullSnapshots, (scope, version) -> false);
    }

    /**
     * A history that keeps, besides the {@code maxVersions} highest versions of each scope, the record of every
     * version {@code alsoKeep} names (scope, version), however old.
     */
    public SnapshotHistory(int maxVersions, int fullSnapshots, BiPredicate<String, Long> alsoKeep) {
        if (maxVersions < 1 || fullSnapshots < 1) {
            throw new IllegalArgumentException("maxVersions and fullSnapshots must be ≥ 1, got " + maxVersions
                    + " and " + fullSnapshots);
        }
        this.maxVersions = maxVersions;
        this.fullSnapshots = fullSnapshots;
        this.alsoKeep = alsoKeep;
    }

    // ---- written by the reader ----

    /** Records a snapshot read at {@code offset} of the params topic (a re-publication replaces the version). */
    public synchronized void onSnapshot(ParameterSnapshot s, long offset) {
        onSnapshot(s, offset, ModelCarrier.problem(s));
    }

    /**
     * As {@link #onSnapshot(ParameterSnapshot, long)}, for a record its reader filed without the forest reference it
     * published, which {@code referenceProblem} says is wrong (selectors refuse the version for it).
     */
    public synchronized void onSnapshot(ParameterSnapshot s, long offset, String referenceProblem) {
        rule.onSnapshot(s);
        Scope sc = scopes.computeIfAbsent(s.getScope(), k -> new Scope());
        ForestSummary carried = null;
        String unusable = referenceProblem;
        if (ModelCarrier.carries(s) && sc.carriers.add(s.getVersion()) && sc.carriers.size() > maxVersions) {
            sc.carriersBelow = sc.carriers.pollFirst(); // an older writer's every record carried it: bounded
        }
        sc.unusableBelowWindow.remove(s.getVersion());
        if (ModelCarrier.refersElsewhere(s)) {
            long named = s.getQuantileModelVersion();
            if (unusable == null && named > sc.carriersBelow && !sc.carriers.contains(named)) {
                unusable = missingCarrier(s.getScope(), named);
            }
            QuantileForestModel m = sc.models.get(s.getQuantileModelVersion());
            if (m != null) {
                s.setQuantileModel(m); // the reader's own decoded record: the full snapshot then shows its forest
            } else {
                VersionRecord c = sc.versions.get(s.getQuantileModelVersion());
                carried = c == null ? null : c.forest();
            }
        } else if (ModelCarrier.carries(s) && !repeatsTheNewestForest(sc, s)) {
            sc.models.put(ModelCarrier.versionOf(s), s.getQuantileModel());
        }
        sc.versions.put(s.getVersion(), VersionRecord.of(s, offset, carried, unusable));
        dropBelowWindow(s.getScope(), sc);
        sc.full.put(s.getVersion(), s);
        while (sc.full.size() > fullSnapshots) {
            sc.full.pollFirstEntry();
        }
        dropUnusedModels(sc);
        changed();
    }

    /** Drops the lowest versions until {@code maxVersions} are left besides those {@code alsoKeep} names. */
    private void dropBelowWindow(String scope, Scope sc) {
        int keptBelow = 0;
        Iterator<Long> lowestFirst = sc.versions.keySet().iterator();
        while (sc.versions.size() - keptBelow > maxVersions && lowestFirst.hasNext()) {
            long v = lowestFirst.next();
            if (alsoKeep.test(scope, v)) {
                keptBelow++;
            } else {
                VersionRecord r = sc.versions.get(v);
                if (r.accepted() && !r.usable()) {
                    sc.unusableBelowWindow.put(v, r.unusable());
                    if (sc.unusableBelowWindow.size() > maxVersions) {
                        sc.unusableBelowWindow.pollFirstEntry(); // a writer spamming them: bounded like the window
                    }
                }
                lowestFirst.remove();
            }
        }
    }

    /**
     * Whether {@code s}, written before {@code quantileModelVersion} existed (every record inline), carries the forest
     * the newest held carrier does: the first record with it stays its carrier, which a job restored from such a
     * writer's state names.
     */
    private static boolean repeatsTheNewestForest(Scope sc, ParameterSnapshot s) {
        return s.getQuantileModelVersion() == null && !sc.models.isEmpty()
                && sc.models.lastEntry().getValue().equals(s.getQuantileModel());
    }

    /**
     * Keeps the forests the full snapshots use, and the newest one (the next snapshots name it): the same objects the
     * full snapshots hold, so the map costs no memory of its own.
     */
    private static void dropUnusedModels(Scope sc) {
        Long newest = sc.models.isEmpty() ? null : sc.models.lastKey();
        sc.models.keySet().removeIf(v -> !v.equals(newest)
                && sc.full.values().stream().noneMatch(f -> v.equals(ModelCarrier.versionOf(f))));
    }

    /** A tombstone on the params topic deleted {@code version} of {@code scope}: it can no longer be active. */
    public synchronized void onTombstone(String scope, long version) {
        rule.onSnapshot(scope, version, SnapshotStatus.REJECTED, 0);
        Scope sc = scopes.get(scope);
        if (sc != null) {
            sc.versions.remove(version);
            sc.full.remove(version);
            sc.models.remove(version);
            sc.unusableBelowWindow.remove(version);
            // A version read after this naming it is refused by a selector that reads it now, as by one started later;
            // those read before stay as they were: a selector that applied that forest keeps serving them.
            sc.carriers.remove(version);
        }
        changed();
    }

    /** Why a version naming the forest of {@code carrier}, not on the topic as this history read it, cannot be used. */
    private static String missingCarrier(String scope, long carrier) {
        return "version " + carrier + " of scope '" + scope + "', which it names as carrying its output-length model, "
                + "carries none on " + Topics.PARAMS + " (never published with one, or deleted)";
    }

    /** Applies a control record; false when its sequence is not above the scope's last one (ignored). */
    public synchronized boolean onControl(SnapshotControl c) {
        if (!rule.onControl(c)) {
            return false;
        }
        Scope sc = scopes.computeIfAbsent(c.getScope(), k -> new Scope());
        sc.controls.addFirst(ScopeState.ControlEntry.of(c));
        while (sc.controls.size() > CONTROL_ENTRIES) {
            sc.controls.removeLast();
        }
        changed();
        return true;
    }

    /** {@link ActivationRule#waitsForReadThrough()}. */
    @Override
    public synchronized boolean waitsForReadThrough() {
        return rule.waitsForReadThrough();
    }

    /** {@link ActivationRule#readMark()}. */
    @Override
    public synchronized long readMark() {
        return rule.readMark();
    }

    /** {@link ActivationRule#readThrough(long)}: what it releases may change a scope's active version. */
    @Override
    public synchronized boolean readThrough(long mark) {
        boolean released = rule.readThrough(mark);
        if (released) {
            changed();
        }
        return released;
    }

    /** Forgets everything (a reader session starts over from the beginning of both topics). */
    public synchronized void reset() {
        rule = new ActivationRule();
        paramsPosition = 0;
        scopes.clear();
        ready = false;
        changed();
    }

    /** The reader has caught up with both topics as they were when its session started. */
    public synchronized void markReady() {
        ready = true;
        changed();
    }

    private void changed() {
        revision++;
        notifyAll();
    }

    // ---- queries ----

    /** Whether the reader has caught up (until then statuses may be incomplete and writes are refused). */
    public synchronized boolean ready() {
        return ready;
    }

    /** Increases on every change; the page polls it to know when to refresh. */
    public synchronized long revision() {
        return revision;
    }

    /** Every scope seen on either topic, sorted. */
    public synchronized List<String> scopes() {
        List<String> all = new ArrayList<>(scopes.keySet());
        for (String s : rule.scopes()) {
            if (!all.contains(s)) {
                all.add(s);
            }
        }
        all.sort(null);
        return all;
    }

    /** The state of {@code scope}, or empty when no record names it. */
    public synchronized Optional<ScopeState> scope(String scope) {
        Scope sc = scopes.get(scope);
        if (sc == null) {
            return Optional.empty();
        }
        OptionalLong active = rule.activeVersion(scope);
        OptionalLong served = servedVersion(scope, sc);
        boolean pinned = rule.isPinned(scope);
        Long pinnedVersion = pinned ? rule.control(scope).get().getVersion() : null;
        return Optional.of(new ScopeState(scope, active.isPresent() ? active.getAsLong() : null,
                served.isPresent() ? served.getAsLong() : null, pinned, pinnedVersion,
                rule.controlSequence(scope), List.copyOf(sc.controls), List.copyOf(sc.versions.values())));
    }

    /**
     * The version selectors serve: the rule's choice among the versions they can use, as a selector's loader makes it
     * (a version it gives up on is skipped). A version older than the history's window is judged as it was read.
     */
    private OptionalLong servedVersion(String scope, Scope sc) {
        return rule.activeVersion(scope, v -> usable(sc, v));
    }

    /** Whether selectors can use version {@code v} as far as this history read it (one it never read: yes). */
    private static boolean usable(Scope sc, long v) {
        VersionRecord r = sc.versions.get(v);
        return r == null ? !sc.unusableBelowWindow.containsKey(v) : r.usable();
    }

    /** {@link ScopeState#servedVersion()} of {@code scope}. */
    public synchronized OptionalLong servedVersion(String scope) {
        Scope sc = scopes.get(scope);
        return sc == null ? rule.activeVersion(scope) : servedVersion(scope, sc);
    }

    /** One version's record, if the history holds it. */
    public synchronized Optional<VersionRecord> version(String scope, long version) {
        Scope sc = scopes.get(scope);
        return Optional.ofNullable(sc == null ? null : sc.versions.get(version));
    }

    /** The full snapshot of one version, if it is among the latest few kept in full. */
    public synchronized Optional<ParameterSnapshot> fullSnapshot(String scope, long version) {
        Scope sc = scopes.get(scope);
        return Optional.ofNullable(sc == null ? null : sc.full.get(version));
    }

    /** The highest version of {@code scope} kept in full (any status). */
    public synchronized Optional<ParameterSnapshot> latestFullSnapshot(String scope) {
        Scope sc = scopes.get(scope);
        return sc == null || sc.full.isEmpty() ? Optional.empty() : Optional.of(sc.full.lastEntry().getValue());
    }

    /** The active version of {@code scope} by {@link ActivationRule}. */
    public synchronized OptionalLong activeVersion(String scope) {
        return rule.activeVersion(scope);
    }

    /** The last applied control sequence of {@code scope} (0 when none). */
    public synchronized long controlSequence(String scope) {
        return rule.controlSequence(scope);
    }

    /**
     * The sequence the next control record of {@code scope} takes ({@link ActivationRule#nextSequence}): above the last
     * applied one and above every sequence its snapshots were stamped with, so that a job which applied records since
     * lost from the control topic does not ignore it.
     */
    public synchronized long nextControlSequence(String scope) {
        return rule.nextSequence(scope);
    }

    /**
     * The version a rollback of {@code scope} pins ({@link ActivationRule#rollbackTarget}: the one active before the
     * current one, never one an operator rolled back from), from the rule, which knows every accepted version and
     * control record: the target of a version pinned below the window is older than the window too.
     */
    public synchronized OptionalLong rollbackTarget(String scope) {
        return rule.rollbackTarget(scope);
    }

    /**
     * The version a rollback of {@code scope} pins for selectors to serve: {@link #rollbackTarget}, or, when selectors
     * cannot use that one ({@link VersionRecord#unusable}), the newest accepted version below it that they can use and
     * no operator rolled back from: what they served while it was active. Empty when there is none.
     */
    public synchronized OptionalLong servableRollbackTarget(String scope) {
        OptionalLong target = rule.rollbackTarget(scope);
        Scope sc = scopes.get(scope);
        if (target.isEmpty() || sc == null) {
            return target;
        }
        if (usable(sc, target.getAsLong())) {
            return target;
        }
        NavigableSet<Long> rolledBack = rule.rolledBackFrom(scope);
        for (VersionRecord below : sc.versions.headMap(target.getAsLong(), false).descendingMap().values()) {
            if (below.accepted() && below.usable() && !rolledBack.contains(below.version())) {
                return OptionalLong.of(below.version());
            }
        }
        return OptionalLong.empty();
    }

    /** The versions of {@code scope} an operator rolled back from ({@link ActivationRule#rolledBackFrom}). */
    public synchronized NavigableSet<Long> rolledBackFrom(String scope) {
        return rule.rolledBackFrom(scope);
    }

    /** The reader has applied every params record below {@code position} (its consumer's position). */
    public synchronized void paramsReadTo(long position) {
        if (position > paramsPosition) {
            paramsPosition = position;
            notifyAll();
        }
    }

    /**
     * Waits until every params record below {@code offset} is applied: a snapshot trim writes no control record, so
     * only this tells a writer behind the fence that the history holds the trim's deletions. False on timeout.
     */
    public synchronized boolean awaitParamsPosition(long offset, long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (paramsPosition < offset) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }

    /**
     * Waits until the control sequence of {@code scope} is at least {@code sequence} (a write has come
     * back through the topic); false on timeout.
     */
    public synchronized boolean awaitControlSequence(String scope, long sequence, long timeoutMs)
            throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (rule.controlSequence(scope) < sequence) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }
}
