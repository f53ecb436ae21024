package io.tierroute.sim.live;

import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.scheduling.SelectorSettings;
import io.tierroute.selector.scheduling.WorkerSpec;
import io.tierroute.sim.policy.FleetView;
import io.tierroute.sim.policy.tierroute.TierroutePolicy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The settings of the selector that routes the live fleet: one worker per simulated engine, named as the records name
 * it ({@link FleetPublisher#worker}), with its HBM capacity and tier bandwidths; the fleet's model, block size and
 * bytes per token; and late binding as in the benchmark, with no queue limit that could cut a held request off.
 * Stateless.
 */
final class LiveSelectorSettings {

    private LiveSelectorSettings() {
    }

    /** The selector settings for the simulated engines of {@code fleet}, seeded with {@code seed}. */
    static SelectorSettings of(FleetView fleet, long seed) {
        int n = fleet.workers();
        List<WorkerSpec> specs = new ArrayList<>(n);
        for (int w = 0; w < n; w++) {
            double[] bw = new double[Tier.COUNT];
            for (Tier t : Tier.values()) {
                bw[t.ordinal()] = t == Tier.HBM ? 0 : fleet.bandwidth(w, t);
            }
            specs.add(new WorkerSpec(FleetPublisher.worker(w), fleet.hbmCapacityBlocks(w) * fleet.blockSize(), bw, false, 0, 0));
        }
        // Late binding as in the benchmark (TierroutePolicy.HOLD_AT_WAITING, HOLD_AT_CHEAPEST_WAITING): this fleet posts
        // every first token. A held request waits in simulated time, which a drained fleet may stop: no queue wait
        // limit cuts it off. One selector routes every request of the fleet: its own KV accounting is the workers' exact
        // KV demand.
        return SelectorSettings.builder(specs).model(fleet.model()).blockSize(fleet.blockSize())
                .bytesPerToken(fleet.bytesPerToken()).requestMaxAge(Duration.ofDays(1)).seed(seed).ownKvAccounting(true)
                .holdAtWaiting(TierroutePolicy.HOLD_AT_WAITING)
                .holdAtCheapestWaiting(TierroutePolicy.HOLD_AT_CHEAPEST_WAITING)
                .maxQueued(Integer.MAX_VALUE).maxQueueWait(Duration.ofDays(1)).build();
    }
}
