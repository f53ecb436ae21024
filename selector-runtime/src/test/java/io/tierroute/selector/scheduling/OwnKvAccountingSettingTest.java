package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.sequences.Telemetry;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code routing.ownKvAccounting}: a worker's {@code KV_used} is the demand of the requests this selector sent there, or
 * the engine's sampled usage plus what was sent since. One 4,096-token request routed, then a sample taken after it
 * that says the engine holds 100,000 tokens (other routers' requests, or this one's not yet admitted there).
 */
class OwnKvAccountingSettingTest {

    private static long kvUsedAfterSample(boolean own) throws Exception {
        SelectorSettings settings = SelectorSettings.builder(List.of(WorkerSpec.of("w0", 1_000_000))).blockSize(16)
                .seed(7L).ownKvAccounting(own).build();
        NaiveReferenceIndex index = new NaiveReferenceIndex(1);
        long[] clock = {1_000_000_000L};
        Selector s = new Selector(settings, index, new DirectIndexWriter(index),
                new ParameterStore(ParameterSet.defaults(1)), () -> clock[0]);
        assertThat(s.inflight().ownKvAccounting()).isEqualTo(own);
        int[] tokens = new int[4096];
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = i;
        }
        s.route(new RouteRequest("r0", null, null, null, tokens, null, null, null, 512, null, null, false)).get();
        clock[0] += 1_000_000;
        s.onTelemetry(new Telemetry(0, clock[0], 0, 1, 100_000));
        return s.inflight().view(0).kvUsedTokens();
    }

    @Test
    void ownAccountingCountsTheRequestsSentTheSampleDoesNot() throws Exception {
        assertThat(kvUsedAfterSample(true)).as("the routed request's context").isEqualTo(4096);
        assertThat(kvUsedAfterSample(false)).as("the engine's sample: nothing was sent since").isEqualTo(100_000);
    }

    @Test
    void offByDefault() {
        assertThat(SelectorSettings.builder(List.of(WorkerSpec.of("w0", 1_000_000))).build().ownKvAccounting()).isFalse();
    }
}
