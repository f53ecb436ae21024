package io.tierroute.selector.scheduling;

import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class UnpricedTiersTest {

    @Test
    void countsBlocksPutOnATierTheWorkerIsConfiguredWithoutUnlessTheParametersPriceIt() {
        AtomicReference<ParameterSet> active = new AtomicReference<>(ParameterSet.builder(1).build());
        UnpricedTiers unpriced = new UnpricedTiers(List.of(WorkerSpec.of("w0", 1000)), active::get); // CPU only
        long[] h = {1, 2};
        List<KvEvent> events = List.of(new KvEvent.Stored(0, Tier.HBM, false, 0, h),
                new KvEvent.Stored(0, Tier.CPU, false, 0, h), new KvEvent.Moved(0, Tier.CPU, Tier.NVME, h),
                new KvEvent.Removed(0, Tier.REMOTE, h), new KvEvent.Stored(0, Tier.NVME, false, 0, h));

        assertThat(unpriced.check(events)).as("the move to NVMe and the NVMe store; a removal puts nothing")
                .isEqualTo(unpriced.describe(0, Tier.NVME)).contains("'w0'").contains("tiers.nvme");
        assertThat(unpriced.total()).isEqualTo(2);

        active.set(ParameterSet.builder(1).bandwidth(Tier.NVME, 7e9).build()); // as the cost model: priced everywhere
        assertThat(unpriced.check(events)).isNull();
        assertThat(unpriced.total()).isEqualTo(2);
    }
}
