package io.tierroute.jobs.fit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierroute.jobs.join.JoinedRow;
import io.tierroute.jobs.serde.LayoutBeforeKvWaitWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * Replay chunks sealed by the previous version (format 1, rows without the admission wait's fields) still decode
 * after a restore — those fields unknown, so the fit skips the rows while the regression and the forest use them —
 * and chunks of this version (format 2) keep them.
 */
class RowCodecFormatTest {

    private static JoinedRow row(int i) {
        JoinedRow r = new JoinedRow();
        r.scope = "s";
        r.worker = "w" + i;
        r.eventTimeMs = 1_000L + i;
        r.realisedUs = 5_000 + i;
        r.regressors.pEffTokens = 100 + i;
        r.request.isl = 200 + i;
        r.request.model = "m";
        r.request.stepIndex = i;
        r.outputTokens = 10 + i;
        r.regressors.inflightDecodeTokens = 30;
        r.admission.kvUsedTokens = 40_000 + i;
        r.admission.predictedOutputTokens = 128;
        r.admission.missingKvTokens = i;
        r.admission.inFlight = 3;
        r.admission.predictedPrefillUs = 4_000;
        r.admission.predictedQueueUs = 500;
        r.decodeUs = 600_000 + i;
        r.queueWaitUs = 700;
        r.prefillUs = 4_300;
        return r;
    }

    @Test
    void aChunkOfThePreviousVersionDecodesWithTheNewFieldsUnknown() throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(1024);
        out.writeByte(1);
        out.writeInt(3);
        for (int i = 0; i < 3; i++) {
            LayoutBeforeKvWaitWriter.writeJoined(row(i), out);
        }
        List<JoinedRow> back = new ArrayList<>();
        RowCodec.decodeRows(out.getCopyOfBuffer(), back::add);
        assertThat(back).hasSize(3);
        for (int i = 0; i < 3; i++) {
            JoinedRow r = back.get(i);
            assertThat(r.latency()).isEqualTo(row(i).latency());
            assertThat(r.output()).isEqualTo(row(i).output());
            assertThat(r.kvWait()).isNull();
            assertThat(r.admission.kvUsedTokens).isNaN();
            assertThat(r.admission.inFlight).isEqualTo(-1);
        }
    }

    @Test
    void aChunkOfThisVersionKeepsTheAdmissionWaitRow() {
        List<JoinedRow> rows = List.of(row(0), row(1));
        byte[] chunk = RowCodec.encodeRows(rows);
        assertThat(chunk[0]).isEqualTo((byte) 2);
        List<JoinedRow> back = new ArrayList<>();
        RowCodec.decodeRows(chunk, back::add);
        assertThat(back).extracting(JoinedRow::kvWait).containsExactly(row(0).kvWait(), row(1).kvWait());
        assertThat(back.get(1).kvWait()).isNotNull();
    }

    @Test
    void anUnknownFormatIsRefused() {
        byte[] chunk = RowCodec.encodeRows(List.of(row(0)));
        chunk[0] = 9;
        assertThatThrownBy(() -> RowCodec.decodeRows(chunk, r -> { })).isInstanceOf(UncheckedIOException.class)
            .hasMessageContaining("format 9");
    }
}
