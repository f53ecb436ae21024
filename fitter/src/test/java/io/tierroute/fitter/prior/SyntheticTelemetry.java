package io.tierroute.fitter.prior;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Telemetry from a known truth per pool: α_p (µs/token), decode step time (µs/step) and a running
 * batch uniform on [batchLo, batchHi] (so α_d truth = step / ((lo + hi)/2)). Each worker reports at
 * irregular intervals (0.2–5 s, 2 % gaps of up to 60 s); the busy share of each interval is random
 * (20 % of intervals without prefill, 10 % without decode, 3 % with running = 0); per-sample time per
 * token and per step carry multiplicative noise. Samples of all workers are merged in time order.
 */
final class SyntheticTelemetry {

    record Truth(PoolKey pool, double alphaP, double stepUs, int batchLo, int batchHi) {
        double alphaD() {
            return stepUs / ((batchLo + batchHi) / 2.0);
        }
    }

    record Sample(String worker, PoolKey pool, long timestampMs, long intervalMs, double prefillTokens,
                  double prefillBusyUs, double decodeSteps, double decodeBusyUs, double running) {
        PriorOutcome offer(TelemetryPriors p) {
            return p.update(worker, pool, timestampMs, intervalMs, prefillTokens, prefillBusyUs, decodeSteps,
                decodeBusyUs, running);
        }
    }

    static final List<Truth> POOLS = List.of(
        new Truth(new PoolKey("vllm", "h100-80g"), 60.0, 14_000, 8, 48),
        new Truth(new PoolKey("vllm", "a100-40g"), 150.0, 27_000, 4, 24),
        new Truth(new PoolKey("sglang", "h100-80g"), 52.0, 11_500, 16, 96));

    private SyntheticTelemetry() {}

    static List<Sample> generate(long seed, List<Truth> truths, int workersPerPool, int samplesPerWorker,
                                 double noise) {
        SplittableRandom r = new SplittableRandom(seed);
        List<Sample> out = new ArrayList<>();
        long t0 = 1_700_000_000_000L;
        for (Truth truth : truths) {
            for (int w = 0; w < workersPerPool; w++) {
                String worker = truth.pool().hardwarePool() + "/" + truth.pool().engineType() + "/w" + w;
                long t = t0 + r.nextInt(5000);
                for (int i = 0; i < samplesPerWorker; i++) {
                    long interval = r.nextDouble() < 0.02 ? 5_000 + r.nextInt(55_000) : 200 + r.nextInt(4800);
                    t += interval;
                    double intervalUs = interval * 1000.0;
                    double tokens = 0;
                    double pBusy = 0;
                    if (r.nextDouble() >= 0.2) {
                        tokens = Math.floor(r.nextDouble() * 0.45 * intervalUs / truth.alphaP()) + 1;
                        pBusy = Math.max(1, Math.round(tokens * truth.alphaP() * (1 + noise * r.nextGaussian())));
                    }
                    double steps = 0;
                    double dBusy = 0;
                    double running = truth.batchLo() + r.nextInt(truth.batchHi() - truth.batchLo() + 1);
                    if (r.nextDouble() >= 0.1) {
                        steps = Math.floor(r.nextDouble() * 0.5 * intervalUs / truth.stepUs()) + 1;
                        dBusy = Math.max(1, Math.round(steps * truth.stepUs() * (1 + noise * r.nextGaussian())));
                        if (r.nextDouble() < 0.03) {
                            running = 0;
                        }
                    }
                    out.add(new Sample(worker, truth.pool(), t, interval, tokens, pBusy, steps, dBusy, running));
                }
            }
        }
        out.sort((a, b) -> Long.compare(a.timestampMs(), b.timestampMs()));
        return out;
    }
}
