package io.tierroute.selector.kafka;

import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.snapshot.ModelCarrier;
import io.tierroute.selector.kafka.SnapshotRecordReader.Where;

import java.util.HashSet;
import java.util.Set;
import java.util.TreeMap;

/**
 * What {@link ParameterLoader} knows of the served scope's records that carry an output-length model in full
 * ({@link ModelCarrier}), so that a snapshot naming one is resolved without a read where possible: their offsets
 * (in any status: the first record to carry a retrained forest may be one the gate rejected), the newest one's bytes
 * (the records right after a training name it), the model the applied set uses, and the carriers found gone (every
 * snapshot after a lost carrier names it: looked for once, until it is published again). Loader thread only.
 */
final class ModelCarriers {
    private final int capacity;
    private final TreeMap<Long, Where> offsets = new TreeMap<>();
    private final Set<Long> missing = new HashSet<>();
    private long newestVersion;
    private byte[] newestBytes;
    private long appliedVersion;
    private QuantileForestModel applied;

    /** @param capacity how many carriers' offsets are indexed (the highest versions) */
    ModelCarriers(int capacity) {
        this.capacity = capacity;
    }

    /** Forgets everything (a new session reads the topics from the beginning). */
    void clear() {
        offsets.clear();
        missing.clear();
        newestVersion = 0;
        newestBytes = null;
        appliedVersion = 0;
        applied = null;
    }

    /** A served-scope record read at {@code where}; {@code carries}: it holds its model in full. */
    void onRecord(long version, boolean carries, Where where, byte[] bytes) {
        missing.remove(version); // republished: worth another look
        if (!carries) {
            return;
        }
        offsets.put(version, where);
        if (offsets.size() > capacity) {
            offsets.pollFirstEntry();
        }
        if (version >= newestVersion) {
            newestVersion = version;
            newestBytes = bytes;
        }
    }

    /** A tombstone deleted {@code version}. */
    void onTombstone(long version) {
        offsets.remove(version);
        if (version == newestVersion) {
            newestBytes = null;
        }
    }

    /** The bytes of carrier {@code version} if held (the newest one), else null. */
    byte[] held(long version) {
        return version == newestVersion ? newestBytes : null;
    }

    /** Where carrier {@code version} was read, if indexed. */
    Where where(long version) {
        return offsets.get(version);
    }

    void missing(long version) {
        missing.add(version);
    }

    boolean isMissing(long version) {
        return missing.contains(version);
    }

    /** The model the applied set uses when {@code carrier} is its carrier, else null. */
    QuantileForestModel appliedModel(long carrier) {
        return carrier == appliedVersion ? applied : null;
    }

    /** {@code s} was applied: its model (resolved) is the one later snapshots naming its carrier get. */
    void applied(ParameterSnapshot s) {
        Long carrier = ModelCarrier.versionOf(s);
        appliedVersion = carrier == null ? 0 : carrier;
        applied = s.getQuantileModel();
    }
}
