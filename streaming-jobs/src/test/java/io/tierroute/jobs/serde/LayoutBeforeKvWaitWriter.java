package io.tierroute.jobs.serde;

import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;
import io.tierroute.jobs.join.JoinedRow;
import java.io.DataOutput;
import java.io.IOException;

/**
 * Test fixture: the writers of {@code RowFields} as of commit 09572d4, copied verbatim (the layout before the
 * admission wait's fields), to produce the bytes a checkpoint or savepoint of that version holds.
 */
public final class LayoutBeforeKvWaitWriter {
    private LayoutBeforeKvWaitWriter() {}

    public static void writeDecision(DecisionRow r, DataOutput out) throws IOException {
        writeString(out, r.requestId);
        writeString(out, r.scope);
        writeString(out, r.worker);
        out.writeLong(r.timestampMs);
        out.writeDouble(r.pEffTokens);
        out.writeDouble(r.kvOverflowTokens);
        out.writeDouble(r.recomputeQuadratic);
        out.writeDouble(r.inflightDecodeTokens);
        out.writeDouble(r.inflightDecodeQuadratic);
        out.writeDouble(r.tierTransferUs);
        out.writeInt(r.queueLength);
        out.writeDouble(r.affinityDecay);
        out.writeDouble(r.expectedToolHitFraction);
        writeLong(out, r.idleSinceLastStepMs);
        out.writeInt(r.isl);
        writeString(out, r.model);
        writeString(out, r.lora);
        writeInteger(out, r.stepIndex);
        writeString(out, r.expectedTool);
        out.writeInt(r.maxTokens);
        writeInteger(out, r.outputHint);
        out.writeLong(r.prefixGroupId);
        writeInteger(out, r.previousStepOutputTokens);
        out.writeInt(r.partition);
        out.writeLong(r.offset);
    }

    public static void writeCompletion(CompletionRow r, DataOutput out) throws IOException {
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
    }

    public static void writeJoined(JoinedRow r, DataOutput out) throws IOException {
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

    private static void writeString(DataOutput out, String s) throws IOException {
        out.writeBoolean(s != null);
        if (s != null) {
            out.writeUTF(s);
        }
    }

    private static void writeInteger(DataOutput out, Integer v) throws IOException {
        out.writeBoolean(v != null);
        if (v != null) {
            out.writeInt(v);
        }
    }

    private static void writeLong(DataOutput out, Long v) throws IOException {
        out.writeBoolean(v != null);
        if (v != null) {
            out.writeLong(v);
        }
    }
}
