package io.tierroute.jobs;

import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.snapshot.ControlRecordCheck;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * What {@code tierroute.params} held when the job was started ({@link KafkaWiring#publishedParams}): per scope the
 * newest version (a start without state continues the sequence from it), the versions still on the topic, as
 * sorted ranges, because {@code snapshots trim} deletes old ones with tombstones: a forest carrier named in restored
 * state but deleted since must be published again in full, not named (readers would refuse the reference), and the
 * active snapshot, which a scope without state of its own starts from: its first candidate is gated against it and
 * carries what the fit cannot determine yet from it, as if the job had never lost its state.
 *
 * @param newest per scope, the highest version whose key is on the topic (tombstoned or not)
 * @param live   per scope, the versions whose last record is a snapshot, as {@code [from0, to0, from1, to1, ...]}
 *               inclusive and ascending
 * @param active per scope with an active version ({@link io.tierroute.schemas.snapshot.ActivationRule} over the params
 *               and control topics), that snapshot with its quantile model inline and {@code quantileModelVersion}
 *               naming the record that carries it (null without a model), single-object Avro-encoded
 *               ({@link io.tierroute.schemas.Codecs#PARAMETER_SNAPSHOT}): the job graph ships it with the fitting
 *               operator, which decodes a scope's only when it needs it
 * @param readerSettings the consumer settings the read used (empty when the topic was not read): with them the fitting
 *               operator reads a pinned version its history no longer keeps back from the topic
 *               ({@link #readAccepted})
 */
public record PublishedParams(Map<String, Long> newest, Map<String, long[]> live, Map<String, byte[]> active,
                              Map<String, String> readerSettings) {

    /** Nothing published (or not read). */
    public static final PublishedParams NONE = new PublishedParams(Map.of(), Map.of(), Map.of(), Map.of());

    public PublishedParams {
        newest = Map.copyOf(newest);
        live = Map.copyOf(live);
        active = Map.copyOf(active);
        readerSettings = Map.copyOf(readerSettings);
    }

    /** This read, with the consumer settings a later read of the topic uses. */
    PublishedParams withReaderSettings(Properties settings) {
        Map<String, String> m = new HashMap<>();
        settings.stringPropertyNames().forEach(k -> m.put(k, settings.getProperty(k)));
        return new PublishedParams(newest, live, active, m);
    }

    /**
     * Version {@code version} of {@code scope} as {@code tierroute.params} holds it now, with its quantile model read back
     * from the record carrying it ({@link PublishedParamsReader#acceptedVersion}); null when the topic has no ACCEPTED
     * record of it (never accepted, or deleted by {@code snapshots trim}). Reads the whole topic: for a rare event
     * (a pin of a version older than the job's history), never on a task thread.
     *
     * @param readerSettings {@link #readerSettings} of a read
     */
    public static ParameterSnapshot readAccepted(Map<String, String> readerSettings, String scope, long version) {
        Properties p = new Properties();
        p.putAll(readerSettings);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            return new PublishedParamsReader(c).acceptedVersion(scope, version);
        }
    }

    /**
     * Whether a job started with this read may name {@code version} of {@code scope} as a forest carrier: a version
     * published after the read (above {@code newest}) by this job, or one still on the topic then.
     */
    public static boolean stillPublished(Map<String, Long> newest, Map<String, long[]> live, String scope, long version) {
        if (version > newest.getOrDefault(scope, 0L)) {
            return true;
        }
        long[] ranges = live.get(scope);
        if (ranges == null) {
            return false;
        }
        // the last range starting at or below version
        int lo = 0;
        int hi = ranges.length / 2 - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (ranges[2 * mid] <= version) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found >= 0 && version <= ranges[2 * found + 1];
    }

    /**
     * Builds the read from the topic's records in offset order: a snapshot adds its version, a tombstone removes it;
     * the active snapshots are given as found ({@link PublishedParamsReader}).
     */
    public static final class Builder {
        private final Map<String, Long> newest = new HashMap<>();
        private final Map<String, TreeMap<Long, Long>> ranges = new HashMap<>(); // from → to, disjoint, not adjacent
        private final Map<String, byte[]> active = new HashMap<>();

        /**
         * A snapshot's key names {@code version}; false (nothing recorded) above {@link ControlRecordCheck#MAX_VERSION}:
         * the job's next version is one more, and a key at {@code Long.MAX_VALUE} made that overflow at every publish,
         * a restart loop.
         */
        public boolean snapshot(String scope, long version) {
            if (version > ControlRecordCheck.MAX_VERSION) {
                return false;
            }
            newest.merge(scope, version, Math::max);
            TreeMap<Long, Long> r = ranges.computeIfAbsent(scope, s -> new TreeMap<>());
            Map.Entry<Long, Long> below = r.floorEntry(version);
            if (below != null && below.getValue() >= version) {
                return true; // already live
            }
            long from = below != null && below.getValue() == version - 1 ? below.getKey() : version;
            Long aboveTo = r.remove(version + 1);
            r.put(from, aboveTo != null ? aboveTo : version);
            return true;
        }

        /** A tombstone's key names {@code version}; false (nothing recorded) above the bound, as {@link #snapshot}. */
        public boolean tombstone(String scope, long version) {
            if (version > ControlRecordCheck.MAX_VERSION) {
                return false;
            }
            newest.merge(scope, version, Math::max);
            TreeMap<Long, Long> r = ranges.get(scope);
            Map.Entry<Long, Long> e = r == null ? null : r.floorEntry(version);
            if (e == null || e.getValue() < version) {
                return true; // not live
            }
            r.remove(e.getKey());
            if (e.getKey() < version) {
                r.put(e.getKey(), version - 1);
            }
            if (e.getValue() > version) {
                r.put(version + 1, e.getValue());
            }
            return true;
        }

        /** {@code scope}'s active snapshot, encoded as {@link PublishedParams#active} describes. */
        public void active(String scope, byte[] encoded) {
            active.put(scope, encoded);
        }

        public PublishedParams build() {
            Map<String, long[]> live = new HashMap<>();
            ranges.forEach((scope, r) -> {
                long[] a = new long[2 * r.size()];
                int i = 0;
                for (Map.Entry<Long, Long> e : r.entrySet()) {
                    a[i++] = e.getKey();
                    a[i++] = e.getValue();
                }
                live.put(scope, a);
            });
            return new PublishedParams(newest, live, active, Map.of());
        }
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("PublishedParams").append(newest).append(" live {");
        live.forEach((s, a) -> b.append(s).append('=').append(Arrays.toString(a)).append(' '));
        b.append("} active {");
        active.forEach((s, a) -> b.append(s).append('=').append(a.length).append(" bytes "));
        return b.append('}').toString();
    }
}
