package io.tierroute.jobs.serde;

import io.tierroute.jobs.ingest.AdmissionInputs;
import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.CostRegressors;
import io.tierroute.jobs.ingest.DecisionRow;
import io.tierroute.jobs.ingest.OutputFeatures;
import io.tierroute.jobs.ingest.TelemetrySample;
import io.tierroute.jobs.join.JoinedRow;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The binary form of the job's row classes, field by field in a fixed order (strings as a tag byte + UTF, or
 * length + UTF-8 when long: see {@code writeString}; boxed numbers as a presence flag + value): what crosses the
 * network between operators ({@link RowSerializers}) and what the replay chunks in state hold. Written by hand so that no
 * reflection, boxing or per-field null mask runs per record (Flink's POJO serializer did, and showed up
 * in every task's profile). Changing a layout is a state-format change: add a {@code LAYOUT_*}, read the
 * older ones, and let {@link RowSerializerSnapshot} map its snapshot versions to them.
 */
public final class RowFields {
    /** Decision, completion and joined rows before the admission wait's fields (commit 09572d4 and earlier). */
    public static final int LAYOUT_BEFORE_KV_WAIT = 1;
    /** The admission wait's fields appended to decision, completion and joined rows. */
    public static final int LAYOUT_KV_WAIT = 2;
    /**
     * The join's waiting side ({@code PendingJoinSerializer}) with its arrival's wall-clock time appended; its rows are
     * as in {@link #LAYOUT_KV_WAIT}. No row serializer writes this layout.
     */
    public static final int LAYOUT_JOIN_CLOCK = 3;
    /**
     * A decision row's {@code lastWorkerHeldTokens} appended (completion and joined rows as in {@link #LAYOUT_KV_WAIT});
     * the join's waiting side keeps its arrival clock.
     */
    public static final int LAYOUT_LAST_WORKER_HELD = 4;
    /**
     * What this version writes. The layouts are one sequence: a layout has every field of those before it (the row
     * serializers skip {@link #LAYOUT_JOIN_CLOCK}, which added nothing to rows).
     */
    public static final int LAYOUT = LAYOUT_LAST_WORKER_HELD;

    private RowFields() {}

    public static void writeDecision(DecisionRow r, DataOutput out, int layout) throws IOException {
        writeString(out, r.requestId);
        writeString(out, r.scope);
        writeString(out, r.worker);
        out.writeLong(r.timestampMs);
        writeRegressors(r.regressors, out);
        writeLong(out, r.idleSinceLastStepMs);
        writeOutputFeatures(r.request, out);
        out.writeInt(r.partition);
        out.writeLong(r.offset);
        if (layout >= LAYOUT_KV_WAIT) {
            writeAdmission(r.admission, out);
        }
        if (layout >= LAYOUT_LAST_WORKER_HELD) {
            out.writeLong(r.lastWorkerHeldTokens);
        }
    }

    public static DecisionRow readDecision(DataInput in, int layout) throws IOException {
        DecisionRow r = new DecisionRow();
        r.requestId = readString(in);
        r.scope = readString(in);
        r.worker = readString(in);
        r.timestampMs = in.readLong();
        readRegressors(in, r.regressors);
        r.idleSinceLastStepMs = readLong(in);
        readOutputFeatures(in, r.request);
        r.partition = in.readInt();
        r.offset = in.readLong();
        if (layout >= LAYOUT_KV_WAIT) { // else the admission inputs stay "unknown"
            readAdmission(in, r.admission);
        }
        if (layout >= LAYOUT_LAST_WORKER_HELD) { // else unknown: λ's observation falls back to the return's completion
            r.lastWorkerHeldTokens = in.readLong();
        }
        return r;
    }

    public static void writeCompletion(CompletionRow r, DataOutput out, int layout) throws IOException {
        writeString(out, r.requestId);
        writeString(out, r.scope);
        writeString(out, r.worker);
        out.writeLong(r.finishedTimeMs);
        out.writeBoolean(r.ok);
        out.writeLong(r.realisedUs);
        out.writeLong(r.cachedTokens);
        out.writeInt(r.outputTokens);
        out.writeInt(r.partition);
        out.writeLong(r.offset);
        if (layout >= LAYOUT_KV_WAIT) {
            out.writeLong(r.decodeUs);
            out.writeLong(r.queueWaitUs);
            out.writeLong(r.prefillUs);
        }
    }

    public static CompletionRow readCompletion(DataInput in, int layout) throws IOException {
        CompletionRow r = new CompletionRow();
        r.requestId = readString(in);
        r.scope = readString(in);
        r.worker = readString(in);
        r.finishedTimeMs = in.readLong();
        r.ok = in.readBoolean();
        r.realisedUs = in.readLong();
        r.cachedTokens = in.readLong();
        r.outputTokens = in.readInt();
        r.partition = in.readInt();
        r.offset = in.readLong();
        if (layout >= LAYOUT_KV_WAIT) {
            r.decodeUs = in.readLong();
            r.queueWaitUs = in.readLong();
            r.prefillUs = in.readLong();
        }
        return r;
    }

    public static void writeJoined(JoinedRow r, DataOutput out, int layout) throws IOException {
        writeString(out, r.scope);
        writeString(out, r.worker);
        out.writeLong(r.eventTimeMs);
        out.writeDouble(r.realisedUs);
        writeRegressors(r.regressors, out);
        out.writeDouble(r.returnIdleSeconds);
        out.writeBoolean(r.cacheHit);
        writeOutputFeatures(r.request, out);
        out.writeInt(r.outputTokens);
        if (layout >= LAYOUT_KV_WAIT) {
            writeAdmission(r.admission, out);
            out.writeDouble(r.decodeUs);
            out.writeDouble(r.queueWaitUs);
            out.writeDouble(r.prefillUs);
        }
    }

    public static JoinedRow readJoined(DataInput in, int layout) throws IOException {
        JoinedRow r = new JoinedRow();
        r.scope = readString(in);
        r.worker = readString(in);
        r.eventTimeMs = in.readLong();
        r.realisedUs = in.readDouble();
        readRegressors(in, r.regressors);
        r.returnIdleSeconds = in.readDouble();
        r.cacheHit = in.readBoolean();
        readOutputFeatures(in, r.request);
        r.outputTokens = in.readInt();
        if (layout >= LAYOUT_KV_WAIT) { // else these stay "unknown"
            readAdmission(in, r.admission);
            r.decodeUs = in.readDouble();
            r.queueWaitUs = in.readDouble();
            r.prefillUs = in.readDouble();
        }
        return r;
    }

    // The parts a decision row and the joined row made of it share, each in one fixed order.

    private static void writeRegressors(CostRegressors g, DataOutput out) throws IOException {
        out.writeDouble(g.pEffTokens);
        out.writeDouble(g.kvOverflowTokens);
        out.writeDouble(g.recomputeQuadratic);
        out.writeDouble(g.inflightDecodeTokens);
        out.writeDouble(g.inflightDecodeQuadratic);
        out.writeDouble(g.tierTransferUs);
        out.writeInt(g.queueLength);
        out.writeDouble(g.affinityDecay);
        out.writeDouble(g.expectedToolHitFraction);
    }

    private static void readRegressors(DataInput in, CostRegressors g) throws IOException {
        g.pEffTokens = in.readDouble();
        g.kvOverflowTokens = in.readDouble();
        g.recomputeQuadratic = in.readDouble();
        g.inflightDecodeTokens = in.readDouble();
        g.inflightDecodeQuadratic = in.readDouble();
        g.tierTransferUs = in.readDouble();
        g.queueLength = in.readInt();
        g.affinityDecay = in.readDouble();
        g.expectedToolHitFraction = in.readDouble();
    }

    private static void writeOutputFeatures(OutputFeatures g, DataOutput out) throws IOException {
        out.writeInt(g.isl);
        writeString(out, g.model);
        writeString(out, g.lora);
        writeInteger(out, g.stepIndex);
        writeString(out, g.expectedTool);
        out.writeInt(g.maxTokens);
        writeInteger(out, g.outputHint);
        out.writeLong(g.prefixGroupId);
        writeInteger(out, g.previousStepOutputTokens);
    }

    private static void readOutputFeatures(DataInput in, OutputFeatures g) throws IOException {
        g.isl = in.readInt();
        g.model = readString(in);
        g.lora = readString(in);
        g.stepIndex = readInteger(in);
        g.expectedTool = readString(in);
        g.maxTokens = in.readInt();
        g.outputHint = readInteger(in);
        g.prefixGroupId = in.readLong();
        g.previousStepOutputTokens = readInteger(in);
    }

    private static void writeAdmission(AdmissionInputs g, DataOutput out) throws IOException {
        out.writeDouble(g.kvUsedTokens);
        out.writeDouble(g.predictedOutputTokens);
        out.writeDouble(g.missingKvTokens);
        out.writeInt(g.inFlight);
        out.writeDouble(g.predictedPrefillUs);
        out.writeDouble(g.predictedQueueUs);
    }

    private static void readAdmission(DataInput in, AdmissionInputs g) throws IOException {
        g.kvUsedTokens = in.readDouble();
        g.predictedOutputTokens = in.readDouble();
        g.missingKvTokens = in.readDouble();
        g.inFlight = in.readInt();
        g.predictedPrefillUs = in.readDouble();
        g.predictedQueueUs = in.readDouble();
    }

    public static void writeTelemetry(TelemetrySample s, DataOutput out) throws IOException {
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

    public static TelemetrySample readTelemetry(DataInput in) throws IOException {
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
        return s;
    }

    /** Copies of the rows: fields are primitives or immutable (strings, boxed numbers), arrays are cloned. */
    public static DecisionRow copy(DecisionRow r) {
        DecisionRow c = new DecisionRow(r.regressors.copy(), r.request.copy(), r.admission.copy());
        c.requestId = r.requestId;
        c.scope = r.scope;
        c.worker = r.worker;
        c.timestampMs = r.timestampMs;
        c.idleSinceLastStepMs = r.idleSinceLastStepMs;
        c.lastWorkerHeldTokens = r.lastWorkerHeldTokens;
        c.partition = r.partition;
        c.offset = r.offset;
        return c;
    }

    public static CompletionRow copy(CompletionRow r) {
        CompletionRow c = new CompletionRow();
        c.requestId = r.requestId;
        c.scope = r.scope;
        c.worker = r.worker;
        c.finishedTimeMs = r.finishedTimeMs;
        c.ok = r.ok;
        c.realisedUs = r.realisedUs;
        c.cachedTokens = r.cachedTokens;
        c.outputTokens = r.outputTokens;
        c.partition = r.partition;
        c.offset = r.offset;
        c.decodeUs = r.decodeUs;
        c.queueWaitUs = r.queueWaitUs;
        c.prefillUs = r.prefillUs;
        return c;
    }

    public static JoinedRow copy(JoinedRow r) {
        JoinedRow c = new JoinedRow(r.regressors.copy(), r.request.copy(), r.admission.copy());
        c.scope = r.scope;
        c.worker = r.worker;
        c.eventTimeMs = r.eventTimeMs;
        c.realisedUs = r.realisedUs;
        c.returnIdleSeconds = r.returnIdleSeconds;
        c.cacheHit = r.cacheHit;
        c.outputTokens = r.outputTokens;
        c.decodeUs = r.decodeUs;
        c.queueWaitUs = r.queueWaitUs;
        c.prefillUs = r.prefillUs;
        return c;
    }

    public static TelemetrySample copy(TelemetrySample s) {
        TelemetrySample c = new TelemetrySample();
        c.scope = s.scope;
        c.worker = s.worker;
        c.engineType = s.engineType;
        c.hardwarePool = s.hardwarePool;
        c.timestampMs = s.timestampMs;
        c.intervalMs = s.intervalMs;
        c.runningRequests = s.runningRequests;
        c.prefillTokens = s.prefillTokens;
        c.prefillBusyUs = s.prefillBusyUs;
        c.decodeSteps = s.decodeSteps;
        c.decodeBusyUs = s.decodeBusyUs;
        c.linkTiers = s.linkTiers == null ? null : s.linkTiers.clone();
        c.linkBytes = s.linkBytes == null ? null : s.linkBytes.clone();
        c.linkIntervalMs = s.linkIntervalMs == null ? null : s.linkIntervalMs.clone();
        return c;
    }

    // A string's tag byte: 0 = null, 1 = writeUTF (the only form before long strings; what writeBoolean(true) wrote),
    // 2 = int byte count + UTF-8 bytes. writeUTF throws beyond 65,535 encoded bytes, which would fail the task on
    // the same record after every restart; a string that might exceed it takes the unbounded form, so writing
    // cannot throw on length, and every row written before reads unchanged (no new layout). An older build would
    // misread tag 2; none is written while RecordValidator caps identifiers far below the limit.
    private static final int STRING_NULL = 0;
    private static final int STRING_UTF = 1;
    private static final int STRING_LONG = 2;
    /** Longest string writeUTF surely takes: a char is at most 3 bytes of modified UTF-8. */
    private static final int MAX_UTF_CHARS = 65_535 / 3;

    private static void writeString(DataOutput out, String s) throws IOException {
        if (s == null) {
            out.writeByte(STRING_NULL);
        } else if (s.length() <= MAX_UTF_CHARS) {
            out.writeByte(STRING_UTF);
            out.writeUTF(s);
        } else {
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            out.writeByte(STRING_LONG);
            out.writeInt(utf8.length);
            out.write(utf8);
        }
    }

    private static String readString(DataInput in) throws IOException {
        int tag = in.readByte();
        switch (tag) {
            case STRING_NULL:
                return null;
            case STRING_UTF:
                return in.readUTF();
            case STRING_LONG:
                int n = in.readInt();
                if (n < 0) {
                    throw new IOException("corrupt row: string of " + n + " bytes");
                }
                byte[] utf8 = new byte[n];
                in.readFully(utf8);
                return new String(utf8, StandardCharsets.UTF_8);
            default:
                throw new IOException("corrupt row: string tag " + tag);
        }
    }

    private static void writeInteger(DataOutput out, Integer v) throws IOException {
        out.writeBoolean(v != null);
        if (v != null) {
            out.writeInt(v);
        }
    }

    private static Integer readInteger(DataInput in) throws IOException {
        return in.readBoolean() ? in.readInt() : null;
    }

    private static void writeLong(DataOutput out, Long v) throws IOException {
        out.writeBoolean(v != null);
        if (v != null) {
            out.writeLong(v);
        }
    }

    private static Long readLong(DataInput in) throws IOException {
        return in.readBoolean() ? in.readLong() : null;
    }
}
