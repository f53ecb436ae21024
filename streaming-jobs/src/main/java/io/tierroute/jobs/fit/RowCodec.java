package io.tierroute.jobs.fit;

import io.tierroute.jobs.ingest.TelemetrySample;
import io.tierroute.jobs.join.JoinedRow;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Consumer;

/**
 * Compact binary form of a chunk of replay rows (one {@code byte[]} per chunk in keyed state): a
 * checkpoint copies and writes a few byte arrays instead of serializing thousands of POJOs field by
 * field through reflection. Format: a version byte, the row count, then each row's fields in a fixed
 * order (strings as nullable UTF, boxed integers as a presence flag + value).
 */
final class RowCodec {
    private static final byte FORMAT = 1;

    private RowCodec() {}

    static byte[] encodeRows(List<JoinedRow> rows) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(rows.size() * 128 + 8);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            out.writeInt(rows.size());
            for (JoinedRow r : rows) {
                writeString(out, r.scope);
                writeString(out, r.worker);
                out.writeLong(r.eventTimeMs);
                out.writeDouble(r.realisedUs);
                out.writeDouble(r.pEffTokens);
                out.writeDouble(r.kvOverflowTokens);
                out.writeDouble(r.recomputeQuadratic);
                out.writeDouble(r.inflightDecodeTokens);
                out.writeDouble(r.inflightDecodeQuadratic);
                out.writeDouble(r.tierTransferUs);
                out.writeInt(r.queueLength);
                out.writeDouble(r.affinityDecay);
                out.writeDouble(r.expectedToolHitFraction);
                out.writeDouble(r.returnIdleSeconds);
                out.writeBoolean(r.cacheHit);
                out.writeInt(r.isl);
                writeString(out, r.model);
                writeString(out, r.lora);
                writeInteger(out, r.stepIndex);
                writeString(out, r.expectedTool);
                out.writeInt(r.maxTokens);
                writeInteger(out, r.outputHint);
                out.writeLong(r.prefixGroupId);
                writeInteger(out, r.previousStepOutputTokens);
                out.writeInt(r.outputTokens);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static void decodeRows(byte[] chunk, Consumer<JoinedRow> sink) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(chunk))) {
            checkFormat(in.readByte());
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                JoinedRow r = new JoinedRow();
                r.scope = readString(in);
                r.worker = readString(in);
                r.eventTimeMs = in.readLong();
                r.realisedUs = in.readDouble();
                r.pEffTokens = in.readDouble();
                r.kvOverflowTokens = in.readDouble();
                r.recomputeQuadratic = in.readDouble();
                r.inflightDecodeTokens = in.readDouble();
                r.inflightDecodeQuadratic = in.readDouble();
                r.tierTransferUs = in.readDouble();
                r.queueLength = in.readInt();
                r.affinityDecay = in.readDouble();
                r.expectedToolHitFraction = in.readDouble();
                r.returnIdleSeconds = in.readDouble();
                r.cacheHit = in.readBoolean();
                r.isl = in.readInt();
                r.model = readString(in);
                r.lora = readString(in);
                r.stepIndex = readInteger(in);
                r.expectedTool = readString(in);
                r.maxTokens = in.readInt();
                r.outputHint = readInteger(in);
                r.prefixGroupId = in.readLong();
                r.previousStepOutputTokens = readInteger(in);
                r.outputTokens = in.readInt();
                sink.accept(r);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] encodeTelemetry(List<TelemetrySample> samples) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(samples.size() * 128 + 8);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            out.writeInt(samples.size());
            for (TelemetrySample s : samples) {
                writeString(out, s.scope);
                writeString(out, s.worker);
                writeString(out, s.engineType);
                writeString(out, s.hardwarePool);
                out.writeLong(s.timestampMs);
                out.writeLong(s.intervalMs);
                out.writeInt(s.runningRequests);
                out.writeLong(s.prefillTokens);
                out.writeLong(s.prefillBusyUs);
                out.writeLong(s.decodeSteps);
                out.writeLong(s.decodeBusyUs);
                int links = s.linkTiers == null ? -1 : s.linkTiers.length;
                out.writeInt(links);
                for (int i = 0; i < links; i++) {
                    writeString(out, s.linkTiers[i]);
                    out.writeLong(s.linkBytes[i]);
                    out.writeLong(s.linkIntervalMs[i]);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static void decodeTelemetry(byte[] chunk, Consumer<TelemetrySample> sink) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(chunk))) {
            checkFormat(in.readByte());
            int n = in.readInt();
            for (int k = 0; k < n; k++) {
                TelemetrySample s = new TelemetrySample();
                s.scope = readString(in);
                s.worker = readString(in);
                s.engineType = readString(in);
                s.hardwarePool = readString(in);
                s.timestampMs = in.readLong();
                s.intervalMs = in.readLong();
                s.runningRequests = in.readInt();
                s.prefillTokens = in.readLong();
                s.prefillBusyUs = in.readLong();
                s.decodeSteps = in.readLong();
                s.decodeBusyUs = in.readLong();
                int links = in.readInt();
                if (links >= 0) {
                    s.linkTiers = new String[links];
                    s.linkBytes = new long[links];
                    s.linkIntervalMs = new long[links];
                    for (int i = 0; i < links; i++) {
                        s.linkTiers[i] = readString(in);
                        s.linkBytes[i] = in.readLong();
                        s.linkIntervalMs[i] = in.readLong();
                    }
                }
                sink.accept(s);
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

    private static void writeString(DataOutputStream out, String s) throws IOException {
        out.writeBoolean(s != null);
        if (s != null) {
            out.writeUTF(s);
        }
    }

    private static String readString(DataInputStream in) throws IOException {
        return in.readBoolean() ? in.readUTF() : null;
    }

    private static void writeInteger(DataOutputStream out, Integer v) throws IOException {
        out.writeBoolean(v != null);
        if (v != null) {
            out.writeInt(v);
        }
    }

    private static Integer readInteger(DataInputStream in) throws IOException {
        return in.readBoolean() ? in.readInt() : null;
    }
}
