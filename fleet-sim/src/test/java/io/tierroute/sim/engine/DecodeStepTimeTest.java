package io.tierroute.sim.engine;

import io.tierroute.sim.policy.Completion;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.workload.RequestFactory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.tierroute.sim.engine.StepTimeModelTest.ids;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * DESIGN §6 at engine level: a worker decoding a batch takes, per step, {@code max(1, −25.74·u² + 54.01·u + 5.74)} ms
 * with {@code u} = blocks held by the running requests / HBM blocks (cached blocks nobody holds count as free).
 * The expected times come from the published coefficients typed below, not from {@link StepTimeModel}.
 */
class DecodeStepTimeTest {

    /** DESIGN §6, decode ms per step at KV utilisation u (floor 1 ms). */
    private static double designDecodeMs(double u) {
        return Math.max(1.0, -25.74 * u * u + 54.01 * u + 5.74);
    }

    /** DESIGN §6, prefill ms of a step with t new prompt tokens. */
    private static double designPrefillMs(long t) {
        return 4.209989e-7 * t * t + 1.518344e-2 * t + 16.50142;
    }

    /** The simulator's clock is in whole µs. */
    private static long micros(double ms) {
        return Math.round(ms * 1000.0);
    }

    @Test
    void everyDecodeStepOfABatchTakesTheFormulasTimeAtTheBlocksItsRequestsHold() {
        int bs = 16;
        long capacityBlocks = 64;
        EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(bs).hbmCapacityTokens(capacityBlocks * bs)
                .cpuCapacityTokens(0).build();
        RequestFactory f = new RequestFactory(cfg.model(), bs);
        int[] prompt = {100, 250, 37};
        int[] output = {40, 40, 20};
        String[] id = {"r0", "r1", "r2"};
        List<SimRequest> rs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            rs.add(f.request(id[i], 0, prompt[i], ids(prompt[i] / bs, 1000L * (i + 1)), 64, output[i], null));
        }
        // Every token's time: the first token, every decoded one (progress every token) and the last (finish).
        Map<String, List<Long>> tokenTimes = new HashMap<>();
        WorkerScenarioTest.Recorder rec = new WorkerScenarioTest.Recorder() {
            @Override public int progressEveryTokens() { return 1; }
            @Override public void onFirstToken(SimRequest r, int worker, long now) { times(r).add(now); }
            @Override public void onTokens(SimRequest r, int worker, int generated, long now) {
                assertThat(generated).isEqualTo(times(r).size() + 1);
                times(r).add(now);
            }
            @Override public void onFinished(SimRequest r, int worker, int outputTokens, long now) { times(r).add(now); }
            private List<Long> times(SimRequest r) { return tokenTimes.computeIfAbsent(r.id(), k -> new ArrayList<>()); }
        };
        SimResult result = new Simulation(cfg, rs).run(rec, null);

        // Step 1 prefills all three prompts (387 tokens ≤ the 8192 budget) and emits every first token.
        long firstToken = micros(designPrefillMs(100 + 250 + 37));
        assertThat(firstToken).isEqualTo(22_440);
        // Decode step k computes token P+k of each request still decoding, so that request holds ⌈(P+k)/16⌉ blocks;
        // r2 finishes at step 19 and its two full prompt blocks stay cached, unheld: from step 20 they are not in u.
        long[] step = new long[40];
        for (int k = 1; k <= 39; k++) {
            long held = 0;
            for (int i = 0; i < 3; i++) {
                if (k <= output[i] - 1) {
                    held += (prompt[i] + k + bs - 1) / bs;
                }
            }
            step[k] = micros(designDecodeMs((double) held / capacityBlocks));
        }
        // A few values by hand: steps 1–6 hold 7 + 16 + 3 = 26 blocks (u = 0.40625) → 23.433 ms; step 12 holds 28
        // (u = 0.4375) → 24.443 ms; step 19 holds 8 + 17 + 4 = 29 → 24.928 ms; step 20, r2 gone, 8 + 17 = 25 → 22.910 ms
        // (27 blocks, 23.944 ms, if r2's cached prompt blocks were counted).
        assertThat(step[1]).isEqualTo(23_433);
        assertThat(step[12]).isEqualTo(24_443);
        assertThat(step[19]).isEqualTo(24_928);
        assertThat(step[20]).isEqualTo(22_910);

        for (int i = 0; i < 3; i++) {
            List<Long> t = tokenTimes.get(id[i]);
            assertThat(t).as(id[i] + " tokens").hasSize(output[i]);
            assertThat(t.get(0)).as(id[i] + " first token").isEqualTo(firstToken);
            List<Long> gaps = new ArrayList<>();
            List<Long> expectedGaps = new ArrayList<>();
            long decode = 0;
            for (int k = 1; k < output[i]; k++) {
                gaps.add(t.get(k) - t.get(k - 1));
                expectedGaps.add(step[k]);
                decode += step[k];
            }
            assertThat(gaps).as(id[i] + " inter-token times").isEqualTo(expectedGaps);
            String rid = id[i];
            Completion c = result.completions().stream().filter(x -> x.request().id().equals(rid)).findFirst().orElseThrow();
            assertThat(c.ttftMicros()).isEqualTo(firstToken);
            assertThat(c.prefillMicros()).isEqualTo(firstToken);
            assertThat(c.decodeMicros()).as(id[i] + " decode time").isEqualTo(decode);
            assertThat(c.finishMicros()).isEqualTo(firstToken + decode);
        }
        // r0 and r1 decode 39 steps: the sum of every step above.
        long all = 0;
        for (int k = 1; k <= 39; k++) {
            all += step[k];
        }
        assertThat(result.endMicros()).isEqualTo(firstToken + all);
        assertThat(result.workers().get(0).steps()).isEqualTo(1 + 39);
        assertThat(result.workers().get(0).busyMicros()).isEqualTo(firstToken + all);
    }

    @Test
    void aRequestLoadingFromTheCpuTierHoldsBlocksTheBatchsDecodeStepDoesNotRead() {
        int bs = 16;
        long capacityBlocks = 32;
        // 1/1000 of a 65.536 GB/s link: a 256 KiB token takes 4 ms, a's 10-block prefix 640 ms, dozens of d's steps
        EngineConfig cfg = EngineConfig.builder().workers(1).blockSize(bs).hbmCapacityTokens(capacityBlocks * bs)
                .cpuCapacityTokens(100 * bs).pcieBytesPerSecond(65.536e6).build();
        RequestFactory f = new RequestFactory(cfg.model(), bs);
        int dPrompt = 100;
        List<SimRequest> rs = List.of(
                f.request("a1", 0, 161, ids(10, 1000), 1, 1, null),                  // computes prefix A
                f.request("f", 1_000_000, 496, ids(31, 3000), 2, 2, null),           // needs all 32 blocks: A → CPU
                f.request("d", 2_000_000, dPrompt, ids(6, 5000), 200, 200, null),    // decodes through a2's load
                f.request("a2", 2_100_000, 161, ids(10, 1000), 1, 1, null));         // hits A in the CPU tier
        List<Long> dTimes = new ArrayList<>();
        WorkerScenarioTest.Recorder rec = new WorkerScenarioTest.Recorder() {
            @Override public int progressEveryTokens() { return 1; }
            @Override public void onFirstToken(SimRequest r, int worker, long now) { if (r.id().equals("d")) dTimes.add(now); }
            @Override public void onTokens(SimRequest r, int worker, int generated, long now) {
                if (r.id().equals("d")) dTimes.add(now);
            }
        };
        SimResult result = new Simulation(cfg, rs).run(rec, null);
        Completion a2 = result.completions().stream().filter(c -> c.request().id().equals("a2")).findFirst().orElseThrow();
        assertThat(a2.hitTokens()[io.tierroute.selector.protocol.Tier.CPU.ordinal()]).isEqualTo(160);
        long loadStart = a2.request().arrivalMicros() + a2.queueWaitMicros();
        long loadEnd = loadStart + a2.tierLoadMicros();
        assertThat(a2.tierLoadMicros()).isEqualTo(640_000);

        // d's step k (its token k + 1) computes token P + k, so d holds ⌈(P + k)/16⌉ blocks; a2's 10 loading blocks
        // are held too, but no running request holds them: u is d's blocks alone.
        int during = 0;
        for (int k = 1; k < dTimes.size(); k++) {
            long start = dTimes.get(k - 1);
            long end = dTimes.get(k);
            if (start >= loadStart && end <= loadEnd) {
                long held = (dPrompt + k + bs - 1) / bs;
                assertThat(end - start).as("d's step " + k + " during a2's load")
                        .isEqualTo(micros(designDecodeMs((double) held / capacityBlocks)))
                        .isNotEqualTo(micros(designDecodeMs((double) (held + 10) / capacityBlocks)));
                during++;
            }
        }
        assertThat(during).as("d's decode steps within a2's load").isGreaterThanOrEqualTo(30);
    }
}
