package io.tierroute.jobs;

import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.snapshot.ActivationRule;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Which record of {@code tierroute.params} {@link ActivationRule} makes active in each scope, from one pass over the
 * params and control topics in offset order, as every reader computes it. Only where records are is kept, not what they
 * hold: per scope, the offset of each accepted version and of each record carrying a quantile model in full (its
 * status aside: the first record of a retrained forest may be one the gate rejected), so the active record and its
 * forest's carrier can be read back afterwards.
 */
final class ActiveVersionScan {

    /** Where a record is on its topic. */
    record Where(int partition, long offset) {}

    private final ActivationRule rule = new ActivationRule();
    private final Map<String, TreeMap<Long, Where>> accepted = new HashMap<>();
    private final Map<String, TreeMap<Long, Where>> carriers = new HashMap<>();

    /** A snapshot read at {@code where}; the last record of a version replaces what an earlier one said. */
    void snapshot(ParameterSnapshot s, Where where) {
        String scope = s.getScope().toString();
        long version = s.getVersion();
        rule.onSnapshot(scope, version, s.getStatus(), s.getControlSequence());
        place(accepted, scope, version, s.getStatus() == SnapshotStatus.ACCEPTED ? where : null);
        place(carriers, scope, version, s.getQuantileModel() != null ? where : null);
    }

    /** A tombstone deleted {@code version} of {@code scope} ({@code snapshots trim}): it can no longer be active. */
    void tombstone(String scope, long version) {
        rule.onSnapshot(scope, version, SnapshotStatus.REJECTED, 0);
        place(accepted, scope, version, null);
        place(carriers, scope, version, null);
    }

    /** A control record; the rule ignores an invalid one and one whose sequence is not above its scope's last. */
    void control(SnapshotControl c) {
        rule.onControl(c);
    }

    /**
     * Whether the rule holds something back for a record not read ({@link ActivationRule#waitsForReadThrough}): the
     * reader then reads both topics on to their ends once more and calls {@link #readThrough}.
     */
    boolean waitsForReadThrough() {
        return rule.waitsForReadThrough();
    }

    /** {@link ActivationRule#readMark()}. */
    long readMark() {
        return rule.readMark();
    }

    /** {@link ActivationRule#readThrough(long)}: both topics were read to ends fetched after {@code mark}. */
    void readThrough(long mark) {
        rule.readThrough(mark);
    }

    /** Per scope with an active version, where its record is. */
    Map<String, Where> activeRecords() {
        Map<String, Where> out = new HashMap<>();
        for (String scope : rule.scopes()) {
            OptionalLong v = rule.activeVersion(scope);
            if (v.isPresent()) {
                out.put(scope, accepted.get(scope).get(v.getAsLong()));
            }
        }
        return out;
    }

    /** Where the last record of {@code version} of {@code scope} is when it is ACCEPTED; null otherwise. */
    Where accepted(String scope, long version) {
        TreeMap<Long, Where> a = accepted.get(scope);
        return a == null ? null : a.get(version);
    }

    /** Where the record of {@code version} of {@code scope} that carries a model in full is; null when none is. */
    Where carrier(String scope, long version) {
        TreeMap<Long, Where> c = carriers.get(scope);
        return c == null ? null : c.get(version);
    }

    private static void place(Map<String, TreeMap<Long, Where>> index, String scope, long version, Where where) {
        if (where != null) {
            index.computeIfAbsent(scope, s -> new TreeMap<>()).put(version, where);
        } else {
            TreeMap<Long, Where> m = index.get(scope);
            if (m != null) {
                m.remove(version);
            }
        }
    }
}
