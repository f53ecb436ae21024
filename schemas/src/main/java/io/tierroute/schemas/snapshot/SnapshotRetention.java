package io.tierroute.schemas.snapshot;

import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;

import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which versions of one scope can be deleted from {@code tierroute.params} (every version has its own key, so the
 * compacted topic keeps them all until a tombstone deletes one). Decided from the scope's whole history as readers
 * see it, with the one {@link ActivationRule}, so that no reader's answer changes:
 *
 * <ul>
 *   <li>the newest {@code keep} versions stay (DESIGN.md §5 asks for at least {@value #MIN_KEEP} readable), whatever
 *       their status;</li>
 *   <li>older ones stay when a reader still needs them: the active version, the version the scope's last control
 *       record names (a pin, or an unpin's version, which stays active until the job publishes a successor), the
 *       rollback target ({@link ActivationRule#rollbackTarget}: the version active before the current one, as
 *       {@code snapshots rollback} and the dashboard pick it), the versions an operator rolled back from
 *       ({@link ActivationRule#rolledBackFrom}: deleting one would let the rule infer another, and the target move),
 *       and the record carrying the forest any kept version names ({@link ModelCarrier});</li>
 *   <li>every other version up to {@code newest − keep} is deleted.</li>
 * </ul>
 *
 * Pure: the caller reads the topics and writes the tombstones (behind the scope's control fence, so that no pin
 * commits between the read and the deletion).
 */
public final class SnapshotRetention {

    /** The fewest versions a scope keeps (DESIGN.md §5: at least the last 1000 stay readable). */
    public static final int MIN_KEEP = 1000;

    /** One version of the scope as read: its status and the version whose record carries its forest (or null). */
    public record Version(long version, SnapshotStatus status, Long forestCarrier) {}

    /**
     * What to keep and delete.
     *
     * @param newest   the scope's highest version (0 when it has none)
     * @param held     versions older than the window that stay, each with why (active, pinned, rollback target,
     *                 rolled back from, forest carrier)
     * @param deleted  the versions to delete, ascending
     */
    public record Plan(String scope, long newest, NavigableMap<Long, String> held, List<Long> deleted) {}

    private SnapshotRetention() {}

    /**
     * The plan for {@code scope}, whose versions on the topic are {@code versions} (keyed by version) and whose control
     * state and accepted versions {@code rule} holds (fed the same topics).
     *
     * @throws IllegalArgumentException when {@code keep} is below {@link #MIN_KEEP}
     */
    public static Plan plan(String scope, NavigableMap<Long, Version> versions, ActivationRule rule, long keep) {
        if (keep < MIN_KEEP) {
            throw new IllegalArgumentException("keep must be at least " + MIN_KEEP + " versions (DESIGN.md §5), got "
                    + keep);
        }
        long newest = versions.isEmpty() ? 0 : versions.lastKey();
        long oldestKept = newest - keep + 1;
        TreeMap<Long, String> held = new TreeMap<>();
        OptionalLong active = rule.activeVersion(scope);
        active.ifPresent(v -> held.merge(v, "active", SnapshotRetention::both));
        rule.control(scope).map(SnapshotControl::getVersion).ifPresent(v -> held.merge(v,
                rule.control(scope).get().getAction() == ControlAction.PIN ? "pinned" : "named by the last unpin",
                SnapshotRetention::both));
        rule.rollbackTarget(scope).ifPresent(v -> held.merge(v, "rollback target", SnapshotRetention::both));
        for (long v : rule.rolledBackFrom(scope)) {
            held.merge(v, "rolled back from", SnapshotRetention::both);
        }
        // The forests of every kept version: those in the window, and those held above.
        TreeSet<Long> kept = new TreeSet<>(versions.tailMap(oldestKept, true).keySet());
        kept.addAll(held.keySet());
        for (long k : kept) {
            Version v = versions.get(k);
            if (v != null && v.forestCarrier() != null && v.forestCarrier() != k) {
                held.merge(v.forestCarrier(), "carries the forest of " + k, SnapshotRetention::firstCarrierUse);
            }
        }
        held.keySet().removeIf(v -> v >= oldestKept || !versions.containsKey(v));
        List<Long> deleted = new ArrayList<>();
        for (long v : versions.headMap(oldestKept, false).keySet()) {
            if (!held.containsKey(v)) {
                deleted.add(v);
            }
        }
        return new Plan(scope, newest, held, deleted);
    }

    private static String both(String a, String b) {
        return a + ", " + b;
    }

    /** A carrier named by many kept versions is described by the first (oldest) of them. */
    private static String firstCarrierUse(String first, String later) {
        return first.startsWith("carries the forest of ") && later.startsWith("carries the forest of ") ? first
                : both(first, later);
    }

    /** {@code deleted} as ranges, e.g. "1–4800, 4802–5000", at most {@code maxRanges} of them. */
    public static String ranges(List<Long> deleted, int maxRanges) {
        StringBuilder b = new StringBuilder();
        int shown = 0;
        int i = 0;
        while (i < deleted.size()) {
            int j = i;
            while (j + 1 < deleted.size() && deleted.get(j + 1) == deleted.get(j) + 1) {
                j++;
            }
            if (shown == maxRanges) {
                b.append(", …");
                break;
            }
            b.append(shown == 0 ? "" : ", ").append(deleted.get(i));
            if (j > i) {
                b.append('–').append(deleted.get(j));
            }
            shown++;
            i = j + 1;
        }
        return b.toString();
    }
}
