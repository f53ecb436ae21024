package io.tierroute.sim.policy.oracle;

import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.engine.StepTimeModel;
import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.OracleView;
import io.tierroute.sim.policy.SimRequest;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The oracle's forward simulation against hand-computed step sequences of the engine model. */
class OraclePolicyTest {

    /** Two workers, nothing cached; worker 1 has {@code queued} requests waiting (given per worker). */
    private static final class Fleet implements FleetView, OracleView {
        final List<List<SeqState>> seqs = List.of(new ArrayList<>(), new ArrayList<>());
        @Override public int workers() { return 2; }
        @Override public int blockSize() { return 16; }
        @Override public double bytesPerToken() { return 262_144; }
        @Override public String model() { return "m"; }
        @Override public double bandwidth(int worker, Tier tier) { return tier == Tier.CPU ? 25e9 : 0; }
        @Override public long hbmCapacityBlocks(int worker) { return 100_000; }
        @Override public int maxBatchedTokens() { return 8192; }
        @Override public OracleView oracle() { return this; }
        @Override public void matchedBlocks(int worker, SimRequest request, int[] out) { java.util.Arrays.fill(out, 0); }
        @Override public int waiting(int worker) { return seqs.get(worker).size(); }
        @Override public int running(int worker) { return 0; }
        @Override public long usedBlocks(int worker) { return 0; }
        @Override public long pendingPrefillTokens(int worker) { return 0; }
        @Override public long remainingDecodeTokens(int worker) { return 0; }
        @Override public long pendingTransferBytes(int worker) { return 0; }
        @Override public void sequences(int worker, List<SeqState> out) { out.clear(); out.addAll(seqs.get(worker)); }
    }

    private static SimRequest request(int promptTokens) {
        long[] ids = new long[promptTokens / 16];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = i + 1;
        }
        return new SimRequest("r", 0, promptTokens, ids, ids.clone(), 16, 100, 50, null);
    }

    @Test
    void ttftOnAnIdleWorkerIsItsChunkedPrefill() {
        Fleet f = new Fleet();
        OraclePolicy.Prediction p = new OraclePolicy(f, 1).predict(f, 0, request(10_000));
        double expected = (StepTimeModel.prefillMillis(8192) + StepTimeModel.prefillMillis(1808)) * 1000;
        assertThat(p.ttftMicros()).isCloseTo(expected, within(2.0));
        assertThat(p.harmMicros()).isZero(); // nobody else there
    }

    @Test
    void queuedPrefillAheadDelaysTheFirstTokenAndTheOracleAvoidsIt() {
        Fleet f = new Fleet();
        f.seqs.get(1).add(new OracleView.SeqState(false, 8192, 10, 0, 8192));
        OraclePolicy oracle = new OraclePolicy(f, 1);
        OraclePolicy.Prediction busy = oracle.predict(f, 1, request(8192));
        // step 1: the queued request's 8192 tokens; step 2: it decodes one token (one budget token) while r
        // prefills 8191; step 3: r's last token, beside the other's second decode token
        double u = 16_384.0 / 1_600_000;
        double expected = (StepTimeModel.prefillMillis(8192) + StepTimeModel.prefillMillis(8191) + StepTimeModel.prefillMillis(1)
                + 2 * StepTimeModel.decodeMillis(u)) * 1000;
        assertThat(busy.ttftMicros()).isCloseTo(expected, within(100.0));
        assertThat(busy.harmMicros()).isGreaterThan(0); // r's prefill lengthens the other's decode step
        assertThat(oracle.route(request(8192), f, 0)).isZero();
    }
}
