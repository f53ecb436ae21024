package io.tierroute.jobs.serde;

import io.tierroute.jobs.ingest.CompletionRow;
import io.tierroute.jobs.ingest.DecisionRow;
import io.tierroute.jobs.join.JoinedRow;
import java.io.DataOutput;
import java.io.IOException;

/**
 * Test fixture: the writers of {@code RowFields} as of commit 09572d4 (the layout before the admission wait's fields),
 * statement for statement, the fields read from where the rows now keep them (their shared parts), to produce the bytes
 * a checkpoint or savepoint of that version holds. Layout 2's bytes: {@link LayoutKvWaitBytesTest}.
 */
public final class LayoutBeforeKvWaitWriter {
    private LayoutBeforeKvWaitWriter() {}

    public static void writeDecision(DecisionRow r, DataOutput out) throws IOException {
        writeString(out, r.requestId);
        writeString(out, r.scope);
        writeString(out, r.worker);
        out.writeLong(r.timestampMs);
        out.writeDouble(r.regressors.pEffTokens);
        out.writeDouble(r.regressors.kvOverflowTokens);
        out.writeDouble(r.regressors.recomputeQuadratic);
        out.writeDouble(r.regressors.inflightDecodeTokens);
        out.writeDouble(r.regressors.inflightDecodeQuadratic);
        out.writeDouble(r.regressors.tierTransferUs);
        out.writeInt(r.regressors.queueLength);
        out.writeDouble(r.regressors.affinityDecay);
        out.writeDouble(r.regressors.expectedToolHitFraction);
        writeLong(out, r.idleSinceLastStepMs);
        out.writeInt(r.request.isl);
        writeString(out, r.request.model);
        writeString(out, r.request.lora);
        writeInteger(out, r.request.stepIndex);
        writeString(out, r.request.expectedTool);
        out.writeInt(r.request.maxTokens);
        writeInteger(out, r.request.outputHint);
        out.writeLong(r.request.prefixGroupId);
        writeInteger(out, r.request.previousStepOutputTokens);
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
        out.writeDouble(r.regressors.pEffTokens);
        out.writeDouble(r.regressors.kvOverflowTokens);
        out.writeDouble(r.regressors.recomputeQuadratic);
        out.writeDouble(r.regressors.inflightDecodeTokens);
        out.writeDouble(r.regressors.inflightDecodeQuadratic);
        out.writeDouble(r.regressors.tierTransferUs);
        out.writeInt(r.regressors.queueLength);
        out.writeDouble(r.regressors.affinityDecay);
        out.writeDouble(r.regressors.expectedToolHitFraction);
        out.writeDouble(r.returnIdleSeconds);
        out.writeBoolean(r.cacheHit);
        out.writeInt(r.request.isl);
        writeString(out, r.request.model);
        writeString(out, r.request.lora);
        writeInteger(out, r.request.stepIndex);
        writeString(out, r.request.expectedTool);
        out.writeInt(r.request.maxTokens);
        writeInteger(out, r.request.outputHint);
        out.writeLong(r.request.prefixGroupId);
        writeInteger(out, r.request.previousStepOutputTokens);
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
