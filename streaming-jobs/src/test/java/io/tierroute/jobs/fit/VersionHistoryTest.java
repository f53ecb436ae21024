package io.tierroute.jobs.fit;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.fitter.snapshot.FitResults;
import io.tierroute.fitter.snapshot.SnapshotAssembler;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.SnapshotControl;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.state.MapState;
import org.junit.jupiter.api.Test;

/** What the fitting operator keeps of a scope's accepted versions and their forests. */
class VersionHistoryTest {

    /**
     * The forests kept are those of the kept versions, whatever a control record names: after an unpin naming an old
     * version (which an unpin does for good) every later forest stayed in keyed state, ~400 after 2,000 versions.
     */
    @Test
    void theForestsKeptAreThoseOfTheKeptVersionsAfterAPinOrAnUnpinToo() throws Exception {
        SnapshotControl unpin = SnapshotControl.newBuilder().setScope("s").setAction(ControlAction.UNPIN).setVersion(12L)
                .setReason("r").setActor("a").setTimestampMs(1).setSequence(2).build();
        for (SnapshotControl ctl : new SnapshotControl[] {null, unpin}) {
            InMemory<Long, QuantileForestModel> forests = new InMemory<>();
            VersionHistory vh = new VersionHistory(new InMemory<>(), new InMemory<>(), forests, 10);
            QuantileForestModel model = null;
            long carrier = 0;
            for (long v = 1; v <= 2_000; v++) {
                if (v % 5 == 1) { // a new forest every 5 versions, carried in full by v
                    model = forest(v);
                    carrier = v;
                }
                ParameterSnapshot s = ASSEMBLER.assemble("s", v - 1, null, FitResults.empty());
                s.setStatus(io.tierroute.schemas.avro.SnapshotStatus.ACCEPTED);
                s.setQuantileModelVersion(carrier);
                vh.keep(s, model, ctl == null ? 0 : 2, null, v >= 20 ? ctl : null);
            }
            // versions 1991..2000 use the forests carried by 1991 and 1996; the named v12 uses the one of 11
            List<Long> expected = ctl == null ? List.of(1991L, 1996L) : List.of(11L, 1991L, 1996L);
            assertThat(vh.forestVersions()).as(ctl == null ? "no control" : "after an unpin naming v12")
                    .containsExactlyInAnyOrderElementsOf(expected);
            assertThat(vh.keeps(12)).isEqualTo(ctl != null);
            if (ctl != null) {
                assertThat(vh.active("s", ctl).getQuantileModelVersion()).as("the active (newest) version's forest")
                        .isEqualTo(1996L);
            }
        }
    }

    /**
     * The history keeps fewer versions when their ρ lists together pass its budget (one entry per link: ~80 bytes; kept
     * 1,000 deep at every link it was 74 MB of keyed state at 900 links), never the newest two nor the one a control
     * record names, which keeps its ρ to gate against. A version dropped for it is not kept: a PIN of it is read back
     * from the topic, whole.
     */
    @Test
    void versionsBeyondTheRhoBudgetAreDroppedWholeButTheNamedOneAndTheNewestStay() throws Exception {
        SnapshotControl pin = SnapshotControl.newBuilder().setScope("s").setAction(ControlAction.PIN).setVersion(5L)
                .setReason("r").setActor("a").setTimestampMs(1).setSequence(1).build();
        InMemory<Long, HistoryEntry> history = new InMemory<>();
        VersionHistory vh = new VersionHistory(new InMemory<>(), history, new InMemory<>(), 1_000, 100);
        for (long v = 1; v <= 40; v++) {
            ParameterSnapshot s = ASSEMBLER.assemble("s", v - 1, null, FitResults.empty());
            s.setStatus(io.tierroute.schemas.avro.SnapshotStatus.ACCEPTED);
            List<io.tierroute.schemas.avro.WorkerTierRho> rho = new ArrayList<>();
            for (int w = 0; w < 30; w++) {
                rho.add(io.tierroute.schemas.avro.WorkerTierRho.newBuilder().setWorker("w" + w)
                        .setTier(io.tierroute.schemas.avro.Tier.CPU).setRho(s.getAlphaP()).build());
            }
            s.setRho(rho);
            vh.keep(s, null, 0, null, v >= 5 ? pin : null);
        }
        List<Long> kept = new ArrayList<>();
        history.keys().forEach(kept::add);
        assertThat(kept).as("30 entries each, 100 at most: 38-40 (90), and the pinned 5").containsExactly(5L, 38L, 39L,
                40L);
        assertThat(vh.keeps(12)).as("dropped whole: a PIN of it is read back").isFalse();
        assertThat(vh.active("s", pin).getRho()).as("the pinned version's ρ, to gate against").hasSize(30);

        VersionHistory tight = new VersionHistory(new InMemory<>(), new InMemory<>(), new InMemory<>(), 1_000, 1);
        for (long v = 1; v <= 5; v++) {
            ParameterSnapshot s = ASSEMBLER.assemble("s", v - 1, null, FitResults.empty());
            s.setStatus(io.tierroute.schemas.avro.SnapshotStatus.ACCEPTED);
            s.setRho(history.get(40L).snapshot.getRho());
            tight.keep(s, null, 0, null, null);
        }
        assertThat(tight.keeps(5) && tight.keeps(4) && !tight.keeps(3)).as("the newest two whatever their ρ").isTrue();
    }

    private static final SnapshotAssembler ASSEMBLER = new SnapshotAssembler("test", () -> 0L,
            SnapshotAssembler.DEFAULT_BANDWIDTHS);

    /** A model object per carrier: the history stores it as given (its content is the trainer's business). */
    private static QuantileForestModel forest(long tag) {
        QuantileForestModel m = new QuantileForestModel();
        m.setTrainingRows(tag);
        return m;
    }

    /** A keyed MapState of one key, in memory. */
    static final class InMemory<K, V> implements MapState<K, V> {
        private final TreeMap<K, V> m = new TreeMap<>();
        @Override public V get(K k) { return m.get(k); }
        @Override public void put(K k, V v) { m.put(k, v); }
        @Override public void putAll(Map<K, V> x) { m.putAll(x); }
        @Override public void remove(K k) { m.remove(k); }
        @Override public boolean contains(K k) { return m.containsKey(k); }
        @Override public Iterable<Map.Entry<K, V>> entries() { return new ArrayList<>(m.entrySet()); }
        @Override public Iterable<K> keys() { return new ArrayList<>(m.keySet()); }
        @Override public Iterable<V> values() { return new ArrayList<>(m.values()); }
        @Override public Iterator<Map.Entry<K, V>> iterator() { return entries().iterator(); }
        @Override public boolean isEmpty() { return m.isEmpty(); }
        @Override public void clear() { m.clear(); }
    }
}
