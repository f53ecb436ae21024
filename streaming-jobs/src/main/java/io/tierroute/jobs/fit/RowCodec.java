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
 * Format: a version byte, the row count, then each row as {@link RowFields} writes it. Flink's
 * unsynchronised {@link DataOutputSerializer}, not {@code DataOutputStream} over a
 * {@code ByteArrayOutputStream} (synchronised per byte: sealing chunks was 15 % of the fitting task).
 */
final class RowCodec {
    private static final byte FORMAT = 1;

    private RowCodec() {}

    static byte[] encodeRows(List<JoinedRow> rows) {
        DataOutputSerializer out = new DataOutputSerializer(rows.size() * 160 + 8);
        try {
            out.writeByte(FORMAT);
            out.writeInt(rows.size());
            for (JoinedRow r : rows) {
                RowFields.writeJoined(r, out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.getCopyOfBuffer();
    }

    static void decodeRows(byte[] chunk, Consumer<JoinedRow> sink) {
        DataInputDeserializer in = new DataInputDeserializer(chunk);
        try {
            checkFormat(in.readByte());
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                sink.accept(RowFields.readJoined(in));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] encodeTelemetry(List<TelemetrySample> samples) {
        DataOutputSerializer out = new DataOutputSerializer(samples.size() * 128 + 8);
        try {
            out.writeByte(FORMAT);
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
            checkFormat(in.readByte());
            int n = in.readInt();
            for (int k = 0; k < n; k++) {
                sink.accept(RowFields.readTelemetry(in));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void checkFormat(byte format) throws IOException {
        if (format != FORMAT) {
            throw new IOException("unknown replay chunk format " + format);
        }
    }
}
