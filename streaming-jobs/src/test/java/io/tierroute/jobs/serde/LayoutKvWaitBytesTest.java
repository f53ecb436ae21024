package io.tierroute.jobs.serde;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.jobs.ingest.DecisionRow;
import io.tierroute.jobs.join.JoinedRow;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The bytes of a decision and a joined row in layout 2 ({@link RowFields#LAYOUT_KV_WAIT}), as the version before the rows
 * shared their parts (commit bd381ac, whose checkpoints hold them) wrote the same values: a field moved within a part,
 * which every round trip through the current code would miss, fails here. Layout 1 is {@link LayoutBeforeKvWaitWriter}'s.
 */
class LayoutKvWaitBytesTest {
    private static final String DECISION = "0100057265712d370100017301000277330000018bcfe5687b3ff8000000000000400200000000000040090000000000"
            + "0040120000000000004017000000000000401a000000000000000000073fec0000000000003fd0000000000000010000"
            + "000000002328000004000100047177656e0001000000030100067365617263680000020000000000000000002a010000"
            + "004d000000020000000000003039408f4400000000004072c4000000000040290000000000000000000440b388800000"
            + "0000406f580000000000";
    private static final String JOINED = "0100017301000277330000018bcfe56be840bf4080000000003ff8000000000000400200000000000040090000000000"
            + "0040120000000000004017000000000000401a000000000000000000073fec0000000000003fd0000000000000402200"
            + "000000000001000004000100047177656e01000261640000000002000100000080000000000000002a000000014d408f"
            + "4400000000004072c4000000000040290000000000000000000440b3888000000000406f58000000000040ed4c100000"
            + "00004092c1000000000040bb582000000000";

    @Test
    void aDecisionRowIsWrittenAsBefore() throws IOException {
        DecisionRow d = new DecisionRow();
        d.requestId = "req-7";
        d.scope = "s";
        d.worker = "w3";
        d.timestampMs = 1_700_000_000_123L;
        regressors(d.regressors);
        d.idleSinceLastStepMs = 9000L;
        d.request.isl = 1024;
        d.request.model = "qwen";
        d.request.lora = null;
        d.request.stepIndex = 3;
        d.request.expectedTool = "search";
        d.request.maxTokens = 512;
        d.request.outputHint = null;
        d.request.prefixGroupId = 42L;
        d.request.previousStepOutputTokens = 77;
        d.partition = 2;
        d.offset = 12345L;
        admission(d.admission);
        assertThat(hex(o -> RowFields.writeDecision(d, o, RowFields.LAYOUT_KV_WAIT))).isEqualTo(DECISION);
        assertThat(RowFields.readDecision(new java.io.DataInputStream(new java.io.ByteArrayInputStream(
            HexFormat.of().parseHex(DECISION))), RowFields.LAYOUT_KV_WAIT).admission.predictedQueueUs).isEqualTo(250.75);
    }

    @Test
    void aJoinedRowIsWrittenAsBefore() throws IOException {
        JoinedRow j = new JoinedRow();
        j.scope = "s";
        j.worker = "w3";
        j.eventTimeMs = 1_700_000_001_000L;
        j.realisedUs = 8000.5;
        regressors(j.regressors);
        j.returnIdleSeconds = 9.0;
        j.cacheHit = true;
        j.request.isl = 1024;
        j.request.model = "qwen";
        j.request.lora = "ad";
        j.request.stepIndex = null;
        j.request.expectedTool = null;
        j.request.maxTokens = 512;
        j.request.outputHint = 128;
        j.request.prefixGroupId = 42L;
        j.request.previousStepOutputTokens = null;
        j.outputTokens = 333;
        admission(j.admission);
        j.decodeUs = 60000.5;
        j.queueWaitUs = 1200.25;
        j.prefillUs = 7000.125;
        assertThat(hex(o -> RowFields.writeJoined(j, o, RowFields.LAYOUT_KV_WAIT))).isEqualTo(JOINED);
    }

    private static void regressors(io.tierroute.jobs.ingest.CostRegressors x) {
        x.pEffTokens = 1.5;
        x.kvOverflowTokens = 2.25;
        x.recomputeQuadratic = 3.125;
        x.inflightDecodeTokens = 4.5;
        x.inflightDecodeQuadratic = 5.75;
        x.tierTransferUs = 6.5;
        x.queueLength = 7;
        x.affinityDecay = 0.875;
        x.expectedToolHitFraction = 0.25;
    }

    private static void admission(io.tierroute.jobs.ingest.AdmissionInputs a) {
        a.kvUsedTokens = 1000.5;
        a.predictedOutputTokens = 300.25;
        a.missingKvTokens = 12.5;
        a.inFlight = 4;
        a.predictedPrefillUs = 5000.5;
        a.predictedQueueUs = 250.75;
    }

    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    private static String hex(Writer w) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        w.write(new DataOutputStream(bytes));
        return HexFormat.of().formatHex(bytes.toByteArray());
    }
}
