package io.tierroute.selector.kafka;

import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.selector.kafka.SnapshotRecordReader.Fetched;
import io.tierroute.selector.kafka.SnapshotRecordReader.Where;

import java.util.TreeMap;

/**
 * What {@link ParameterLoader} keeps of the served scope's snapshot records, and how it gets a version's record back
 * from them. Catch-up decodes only each snapshot's identifying fields ({@link SnapshotProjection}); the loader keeps the
 * topic offset of the {@code indexedVersions} highest accepted versions (about 80 bytes each), the encoded bytes of the
 * most recently read accepted versions ({@link RetainedRecords}, an LRU bounded by a count and bytes), the records
 * carrying an output-length model ({@link ModelCarriers}) and the highest rejected version. A version outside the LRU
 * that becomes active, e.g. an operator's pin to an old one, is re-read by its offset with a short-lived consumer, and
 * a version older than the offset index by a scan of the params topic for its key ({@link ReadBack}). So
 * the loader's memory is bounded whatever the history's length. Loader thread only, but for {@link #retained()}.
 */
final class ServedScopeRecords {

    /** Reads a record no longer retained back from the params topic ({@link SnapshotRecordReader}). */
    interface ReadBack {
        /** {@code version}'s record at {@code where}: null bytes, not transient, when compaction or retention took it. */
        Fetched reread(long version, Where where);

        /** Scans the params topic for {@code version}'s record ({@code why} it is not indexed, for the log). */
        Fetched scan(long version, String why);
    }

    private final int indexedVersions;
    private final TreeMap<Long, Where> offsets = new TreeMap<>(); // accepted version → where
    private final ModelCarriers carriers;
    private final RetainedRecords cache;
    private final ReadBack reader;
    private long newestRejected; // the highest REJECTED version, 0 if none

    /**
     * @param indexedVersions accepted versions whose offset is indexed (the highest ones), and carriers likewise
     * @param cache           the LRU of encoded records
     * @param reader          reads a record no longer retained back by its offset, or scans for it
     */
    ServedScopeRecords(int indexedVersions, RetainedRecords cache, ReadBack reader) {
        this.indexedVersions = indexedVersions;
        this.carriers = new ModelCarriers(indexedVersions);
        this.cache = cache;
        this.reader = reader;
    }

    /** Forgets everything (a new session reads the topics from the beginning). */
    void clear() {
        offsets.clear();
        carriers.clear();
        cache.clear();
        newestRejected = 0;
    }

    /** A snapshot record of the served scope, read at {@code where}. */
    void onRecord(long version, SnapshotStatus status, boolean carriesModel, Where where, byte[] bytes) {
        if (status == SnapshotStatus.REJECTED) {
            newestRejected = Math.max(newestRejected, version);
        }
        carriers.onRecord(version, carriesModel, where, bytes);
        if (status == SnapshotStatus.ACCEPTED) {
            offsets.put(version, where);
            if (offsets.size() > indexedVersions) {
                offsets.pollFirstEntry(); // the lowest version: found by a scan if it is ever pinned
            }
            cache.put(version, bytes);
        } else {
            offsets.remove(version);
            cache.remove(version);
        }
    }

    /** A tombstone deleted {@code version} of the served scope (history trimming). */
    void onTombstone(long version) {
        offsets.remove(version);
        carriers.onTombstone(version);
        cache.remove(version);
        if (version == newestRejected) {
            newestRejected = 0; // trimmed from the history: no longer a version anyone can look up
        }
    }

    /** A version's record: from the LRU or the newest carrier if held, else re-read by its offset, else scanned for. */
    Fetched fetch(long version) {
        byte[] held = cache.get(version);
        if (held == null) {
            held = carriers.held(version);
        }
        if (held != null) {
            return new Fetched(held, false);
        }
        Where w = where(version);
        if (w != null) {
            return reader.reread(version, w);
        }
        return reader.scan(version, !offsets.isEmpty() && version < offsets.firstKey()
                ? "older than the " + indexedVersions + " indexed versions" : "not in the offset index");
    }

    /** Where {@code version} was read, as an accepted version or a carrier; null when neither is indexed. */
    Where where(long version) {
        Where w = offsets.get(version);
        return w != null ? w : carriers.where(version);
    }

    /** Where accepted {@code version} was read, or null (the swap's source names only an accepted version's offset). */
    Where acceptedAt(long version) {
        return offsets.get(version);
    }

    ModelCarriers carriers() {
        return carriers;
    }

    /** Accepted versions whose offset is indexed. */
    int indexed() {
        return offsets.size();
    }

    /** Encoded records the LRU holds (any thread). */
    int retained() {
        return cache.size();
    }

    /** The highest rejected version when it is newer than every accepted one (the fits are being refused), else null. */
    Long newestRejectedAboveAccepted() {
        return newestRejected > (offsets.isEmpty() ? 0 : offsets.lastKey()) ? newestRejected : null;
    }
}
