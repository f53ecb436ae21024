package io.tierroute.sim.workload;

import io.tierroute.sim.policy.SimRequest;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Multi-turn chat whose contexts fit comfortably in HBM: sessions of turns, each turn's prompt the
 * whole conversation so far.
 *
 * <p>Distributions: session starts Poisson at {@code sessionsPerSecond}; system prompt one of 4
 * shared 800-token prompts (uniform); turns per session geometric, mean 5, at most 20; user message
 * log-normal (median 150, σ 0.8, [10, 2000]); answer log-normal (median 250, σ 0.7, [10, 2000]),
 * max_tokens 2048; think time between an answer and the next message exponential, mean 15 s (a
 * turn's answer is assumed to take 20 ms + 30 ms per output token, open loop).
 */
public record ChatWorkload(double sessionsPerSecond, int sessions) implements Workload {

    public static ChatWorkload standard() {
        return new ChatWorkload(0.6, 1500);
    }

    @Override
    public String name() {
        return "chat";
    }

    @Override
    public String description() {
        return String.format("multi-turn chat: %d sessions, Poisson %.2f sessions/s, ~5 turns, 800-token system prompts",
                sessions, sessionsPerSecond);
    }

    @Override
    public List<SimRequest> generate(RequestFactory factory, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        List<SimRequest> out = new ArrayList<>();
        long start = 0;
        long privateBase = 1L << 40;
        for (int s = 0; s < sessions; s++) {
            start += Dist.exponentialMicros(r, 1.0 / sessionsPerSecond);
            BlockIds ids = new BlockIds(factory.blockSize(), privateBase).shared(1 + r.nextInt(4), 800);
            int turns = Dist.geometric(r, 5, 20);
            long t = start;
            for (int k = 0; k < turns; k++) {
                ids.unique(Dist.logNormal(r, 150, 0.8, 10, 2000));
                int answer = Dist.logNormal(r, 250, 0.7, 10, 2000);
                out.add(factory.request("chat-" + s + "-" + k, t, ids.tokens(), ids.ids(), 2048, answer, null));
                ids.unique(answer);
                t += 20_000 + 30_000L * answer + Dist.exponentialMicros(r, 15);
            }
            privateBase = ids.nextPrivate();
        }
        out.sort(Comparator.comparingLong(SimRequest::arrivalMicros));
        return out;
    }
}
