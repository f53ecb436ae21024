package io.tierroute.jobs.fit;

import io.tierroute.fitter.forest.OutputRow;
import io.tierroute.jobs.ingest.TelemetrySample;
import io.tierroute.jobs.join.JoinedRow;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.MapState;

/**
 * The current scope's two bounded replay buffers (joined rows, telemetry samples) and the BW_t changes the telemetry
 * needs, over {@link ScopeFitFunction}'s keyed state: the newest entries in a short POJO tail (list state, one append
 * each) and, every {@link #chunkRows} entries, sealed into one compact {@code byte[]} chunk ({@link RowCodec}) in map
 * state, the oldest chunk dropped past the bound. Their layout is in the scope's {@link ScopeCounters}. The rows are
 * the forest's training sample; after a restore both buffers rebuild the estimators.
 */
final class ReplayBuffers {
    /** Largest replay chunk, rows (smaller when the buffer bound is small: a chunk is at most a quarter of it). */
    static final int MAX_CHUNK_ROWS = 512;

    private final MapState<Long, byte[]> rowChunks;
    private final ListState<JoinedRow> rowTail;
    private final MapState<Long, byte[]> telemetryChunks;
    private final ListState<TelemetrySample> telemetryTail;
    private final ListState<BandwidthChange> bandwidthChanges;
    private final int rowBound;
    private final int telemetryBound;
    private final int rowChunkRows;
    private final int telemetryChunkRows;

    ReplayBuffers(MapState<Long, byte[]> rowChunks, ListState<JoinedRow> rowTail, MapState<Long, byte[]> telemetryChunks,
                  ListState<TelemetrySample> telemetryTail, ListState<BandwidthChange> bandwidthChanges, int rowBound,
                  int telemetryBound) {
        this.rowChunks = rowChunks;
        this.rowTail = rowTail;
        this.telemetryChunks = telemetryChunks;
        this.telemetryTail = telemetryTail;
        this.bandwidthChanges = bandwidthChanges;
        this.rowBound = rowBound;
        this.telemetryBound = telemetryBound;
        this.rowChunkRows = chunkRows(rowBound);
        this.telemetryChunkRows = chunkRows(telemetryBound);
    }

    /** Rows per sealed replay chunk for a buffer bound of {@code bound} rows. */
    static int chunkRows(int bound) {
        return Math.max(1, Math.min(MAX_CHUNK_ROWS, bound / 4));
    }

    void addRow(JoinedRow row, ScopeCounters c) throws Exception {
        rowTail.add(row);
        c.bufferedRows++;
        if (++c.rowTail >= rowChunkRows) {
            sealRows(c);
        }
    }

    void addTelemetry(TelemetrySample sample, ScopeCounters c) throws Exception {
        telemetryTail.add(sample);
        c.bufferedTelemetry++;
        if (++c.telemetryTail >= telemetryChunkRows) {
            sealTelemetry(c);
        }
    }

    /** The buffered rows' output features, oldest first, with room for one more chunk. */
    List<OutputRow> outputRows(ScopeCounters c) throws Exception {
        List<OutputRow> rows = new ArrayList<>((int) c.bufferedRows + rowChunkRows);
        forEachRow(c, r -> rows.add(r.output()));
        return rows;
    }

    /** Telemetry samples ever added to the scope, dropped ones included: where a BW_t change takes effect. */
    long telemetryPosition(ScopeCounters c) {
        return c.nextTelemetryChunk * telemetryChunkRows + c.telemetryTail;
    }

    /** Records that BW_t changed (at {@link BandwidthChange#atTelemetry}): the samples after it replay with it. */
    void addBandwidthChange(BandwidthChange change) throws Exception {
        bandwidthChanges.add(change);
    }

    /**
     * Replays the buffers into {@code est}: each telemetry sample with the BW_t of {@code changes} (the recorded ones,
     * {@link #bandwidthChanges}) in use when it first arrived, the last change after them, then the rows. Returns
     * {telemetry samples, rows} replayed.
     */
    long[] replayInto(ScopeEstimators est, ScopeCounters c, List<BandwidthChange> changes) throws Exception {
        long first = c.firstTelemetryChunk * telemetryChunkRows;
        long[] counts = {0, 0};
        int[] next = {0};
        forEachTelemetry(c, s -> {
            while (next[0] < changes.size() && changes.get(next[0]).atTelemetry <= first + counts[0]) {
                est.useBandwidths(changes.get(next[0]++));
            }
            est.add(s);
            counts[0]++;
        });
        while (next[0] < changes.size()) {
            est.useBandwidths(changes.get(next[0]++));
        }
        forEachRow(c, row -> {
            est.add(row);
            counts[1]++;
        });
        return counts;
    }

    /** The recorded BW_t changes, oldest first. */
    List<BandwidthChange> bandwidthChanges() throws Exception {
        List<BandwidthChange> changes = new ArrayList<>();
        bandwidthChanges.get().forEach(changes::add);
        return changes;
    }

    /**
     * Moves the row tail into one compact sealed chunk and drops the oldest chunk beyond the bound: the
     * buffer then holds between {@code rowBound} and {@code rowBound} + 2 chunks of the newest rows.
     * Once per chunk of rows, not per row.
     */
    private void sealRows(ScopeCounters c) throws Exception {
        List<JoinedRow> tail = new ArrayList<>(rowChunkRows);
        for (JoinedRow r : rowTail.get()) {
            tail.add(r);
        }
        rowChunks.put(c.nextRowChunk++, RowCodec.encodeRows(tail));
        rowTail.clear();
        c.rowTail = 0;
        long keep = (rowBound + rowChunkRows - 1) / rowChunkRows;
        while (c.nextRowChunk - c.firstRowChunk > keep) {
            rowChunks.remove(c.firstRowChunk++);
        }
        c.bufferedRows = (c.nextRowChunk - c.firstRowChunk) * rowChunkRows;
    }

    private void sealTelemetry(ScopeCounters c) throws Exception {
        List<TelemetrySample> tail = new ArrayList<>(telemetryChunkRows);
        for (TelemetrySample s : telemetryTail.get()) {
            tail.add(s);
        }
        telemetryChunks.put(c.nextTelemetryChunk++, RowCodec.encodeTelemetry(tail));
        telemetryTail.clear();
        c.telemetryTail = 0;
        long keep = (telemetryBound + telemetryChunkRows - 1) / telemetryChunkRows;
        boolean dropped = false;
        while (c.nextTelemetryChunk - c.firstTelemetryChunk > keep) {
            telemetryChunks.remove(c.firstTelemetryChunk++);
            dropped = true;
        }
        if (dropped) {
            trimBandwidthChanges(c.firstTelemetryChunk * telemetryChunkRows);
        }
        c.bufferedTelemetry = (c.nextTelemetryChunk - c.firstTelemetryChunk) * telemetryChunkRows;
    }

    /** Drops the BW_t changes no buffered sample needs: all before {@code first} but the last of those. */
    private void trimBandwidthChanges(long first) throws Exception {
        List<BandwidthChange> all = bandwidthChanges();
        int keepFrom = 0;
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i).atTelemetry <= first) {
                keepFrom = i;
            }
        }
        if (keepFrom > 0) {
            bandwidthChanges.update(new ArrayList<>(all.subList(keepFrom, all.size())));
        }
    }

    /** The buffered joined rows, oldest first. */
    private void forEachRow(ScopeCounters c, Consumer<JoinedRow> sink) throws Exception {
        for (long k = c.firstRowChunk; k < c.nextRowChunk; k++) {
            byte[] chunk = rowChunks.get(k);
            if (chunk != null) {
                RowCodec.decodeRows(chunk, sink);
            }
        }
        for (JoinedRow r : rowTail.get()) {
            sink.accept(r);
        }
    }

    /** The buffered telemetry samples, oldest first. */
    private void forEachTelemetry(ScopeCounters c, Consumer<TelemetrySample> sink) throws Exception {
        for (long k = c.firstTelemetryChunk; k < c.nextTelemetryChunk; k++) {
            byte[] chunk = telemetryChunks.get(k);
            if (chunk != null) {
                RowCodec.decodeTelemetry(chunk, sink);
            }
        }
        for (TelemetrySample s : telemetryTail.get()) {
            sink.accept(s);
        }
    }
}
