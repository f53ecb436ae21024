package io.tierroute.selector.kafka;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The parameter loader's LRU of encoded snapshot records by version, bounded by a count and a byte budget, so an
 * operator's pin to a recent version swaps without reading the topic again. The most recently put record is always
 * kept, whatever its size. Loader thread only, but for {@link #size()}, which tests and the status read.
 */
final class RetainedRecords {

    private final int maxRecords;
    private final long maxBytes;
    private final LinkedHashMap<Long, byte[]> records = new LinkedHashMap<>(16, 0.75f, true);
    private long bytes;
    private volatile int size;

    /** @param maxRecords at most this many records; @param maxBytes and at most this many bytes (besides the newest) */
    RetainedRecords(int maxRecords, long maxBytes) {
        this.maxRecords = maxRecords;
        this.maxBytes = maxBytes;
    }

    /** Adds (or replaces) {@code version}'s record, then evicts the least recently used until within both bounds. */
    void put(long version, byte[] record) {
        byte[] old = records.put(version, record);
        bytes += record.length - (old == null ? 0 : old.length);
        Iterator<Map.Entry<Long, byte[]>> eldest = records.entrySet().iterator();
        while (records.size() > 1 && (records.size() > maxRecords || bytes > maxBytes)) {
            bytes -= eldest.next().getValue().length;
            eldest.remove();
        }
        size = records.size();
    }

    /** {@code version}'s record (now the most recently used), or null. */
    byte[] get(long version) {
        return records.get(version);
    }

    void remove(long version) {
        byte[] old = records.remove(version);
        if (old != null) {
            bytes -= old.length;
        }
        size = records.size();
    }

    void clear() {
        records.clear();
        bytes = 0;
        size = 0;
    }

    /** Records held (any thread). */
    int size() {
        return size;
    }
}
