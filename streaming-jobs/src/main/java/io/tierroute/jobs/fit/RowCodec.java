package io.tierroute.jobs.fit;

import io.tierroute.jobs.ingest.TelemetrySample;
import io.tierroute.jobs.join.JoinedRow;
import io.tierroute.jobs.serde.RowFields;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * Compact binary form of a chunk of replay rows (one {@code byte[]} per chunk in keyed state): a
 * checkpoint copies and writes a few byte arrays instead of serializing thousands of rows one by one.
 * Format: a version byte, the row count, then each row as {@link RowFields} writes it. Joined-row chunks are
 * format 2 (the admission wait's fields appended, {@link RowFields#LAYOUT_KV_WAIT}); format 1 chunks, sealed by an
 * earlier version and restored from its checkpoint, are still read (those fields "unknown"). Telemetry chunks are
 * format 1 (unchanged). Flink's
 * unsynchronised {@link DataOutputSerializer}, not {@code DataOutputStream} over a
 * {@code ByteArrayOutputStream} (synchronised per byte: sealing chunks was 15 % of the fitting task).
 */
final class RowCodec {
    /** Joined rows before the admission wait's fields; read, no longer written. */
    static final byte ROWS_BEFORE_KV_WAIT = 1;
    /** Joined rows with the admission wait's fields. */
    static final byte ROWS_FORMAT = 2;
    static final byte TELEMETRY_FORMAT = 1;

    private RowCodec() {}

    static byte[] encodeRows(List<JoinedRow> rows) {
        DataOutputSerializer out = new DataOutputSerializer(rows.size() * 232 + 8);
        try {
            out.writeByte(ROWS_FORMAT);
            out.writeInt(rows.size());
            for (JoinedRow r : rows) {
                RowFields.writeJoined(r, out, RowFields.LAYOUT_KV_WAIT);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.getCopyOfBuffer();
    }

    static void decodeRows(byte[] chunk, Consumer<JoinedRow> sink) {
        DataInputDeserializer in = new DataInputDeserializer(chunk);
        try {
            byte format = in.readByte();
            int layout = switch (format) {
                case ROWS_BEFORE_KV_WAIT -> RowFields.LAYOUT_BEFORE_KV_WAIT;
                case ROWS_FORMAT -> RowFields.LAYOUT_KV_WAIT;
                default -> throw new IOException("unknown replay chunk format " + format);
            };
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                sink.accept(RowFields.readJoined(in, layout));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] encodeTelemetry(List<TelemetrySample> samples) {
        DataOutputSerializer out = new DataOutputSerializer(samples.size() * 128 + 8);
        try {
            out.writeByte(TELEMETRY_FORMAT);
            out.writeInt(samples.size());
            for (TelemetrySample s : samples) {
                RowFields.writeTelemetry(s, out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.getCopyOfBuffer();
    }

    static void decodeTelemetry(byte[] chunk, Consumer<TelemetrySample> sink) {
        DataInputDeserializer in = new DataInputDeserializer(chunk);
        try {
            byte format = in.readByte();
            if (format != TELEMETRY_FORMAT) {
                throw new IOException("unknown telemetry chunk format " + format);
            }
            int n = in.readInt();
            for (int k = 0; k < n; k++) {
                sink.accept(RowFields.readTelemetry(in));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
