package io.tierroute.sim.trace;

import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.workload.RequestFactory;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TraceReplayTest {

    private static final Path FIXTURES = Path.of("src/test/resources/traces");
    /** The real traces sit beside the repository (../shared/traces), as in CI. */
    private static final Path SHARED = Path.of("../../shared/traces");

    private final RequestFactory f512 = new RequestFactory("Qwen3-32B", 512);

    @Test
    void mooncakeRecordsKeepTheirBlockIdsAndEqualStampsAreSpread() {
        List<SimRequest> rs = TraceReplay.load(FIXTURES.resolve("mooncake-tiny.jsonl"), TraceFormat.MOONCAKE, f512, 0);
        assertThat(rs).hasSize(5);
        // three at t=0, next distinct stamp 3 ms: 0, 1000, 2000 µs
        assertThat(rs).extracting(SimRequest::arrivalMicros).containsExactly(0L, 1000L, 2000L, 3000L, 10_000L);
        assertThat(rs.get(0).blockIds()).containsExactly(0, 1);      // 1100 tokens: 2 full blocks
        assertThat(rs.get(1).blockIds()).containsExactly(0, 1, 3);   // 1600: 3 full blocks
        assertThat(rs.get(1).blockHashes()[1]).isEqualTo(rs.get(0).blockHashes()[1]); // shared prefix
        assertThat(java.util.Arrays.copyOf(rs.get(3).blockHashes(), 3)).isEqualTo(rs.get(1).blockHashes());
        assertThat(rs.get(2).blockHashes()[0]).isEqualTo(rs.get(0).blockHashes()[0]);
        assertThat(rs.get(4).blockHashes()).isEmpty();
        assertThat(rs.get(3).trueOutputTokensForOracleOnly()).isEqualTo(1); // output 0 → at least 1
        assertThat(rs.get(3).maxTokens()).isEqualTo(TraceReplay.DEFAULT_MAX_TOKENS);
        assertThat(rs.get(4).blockIds()).isEmpty();
    }

    @Test
    void aLimitCutsTheSpreadTraceSoTheCutGroupIsNoBurst() {
        List<SimRequest> all = TraceReplay.load(FIXTURES.resolve("mooncake-tiny.jsonl"), TraceFormat.MOONCAKE, f512, 0);
        List<SimRequest> two = TraceReplay.load(FIXTURES.resolve("mooncake-tiny.jsonl"), TraceFormat.MOONCAKE, f512, 2);
        // the limit splits the three records stamped 0: they still arrive at 0 and 1000 µs, not both at 0
        assertThat(two).extracting(SimRequest::arrivalMicros).containsExactly(0L, 1000L);
        assertThat(two).extracting(SimRequest::id).containsExactly(all.get(0).id(), all.get(1).id());
    }

    @Test
    void azureHasNoSharedBlocksAndMicrosecondArrivals() {
        List<SimRequest> rs = TraceReplay.load(FIXTURES.resolve("azure-tiny.csv"), TraceFormat.AZURE,
                new RequestFactory("m", 16), 0);
        assertThat(rs).hasSize(4);
        assertThat(rs.get(1).arrivalMicros()).isEqualTo(4_314_579L);
        assertThat(rs.get(2).arrivalMicros()).isGreaterThan(rs.get(1).arrivalMicros()); // spread
        assertThat(rs.get(3).arrivalMicros()).isEqualTo(13_319_410L);
        assertThat(rs.get(1).blockIds()).doesNotContain(rs.get(2).blockIds());
    }

    @Test
    void aBlockSizeMismatchAndABadLineAreClearErrors() {
        assertThatThrownBy(() -> TraceReplay.load(FIXTURES.resolve("mooncake-tiny.jsonl"), TraceFormat.MOONCAKE,
                new RequestFactory("m", 16), 0)).hasMessageContaining("block size 512");
        assertThatThrownBy(() -> new MooncakeReader().parse("{\"timestamp\": 1}", null)).hasMessageContaining("input_length");
        assertThatThrownBy(() -> TraceFormat.ofFile("x.parquet")).hasMessageContaining(".jsonl");
    }

    @Test
    void theRealTracesParse() {
        List<SimRequest> mooncake = TraceReplay.load(SHARED.resolve("mooncake/conversation_trace.jsonl"),
                TraceFormat.MOONCAKE, f512, 0);
        assertThat(mooncake).hasSize(12_031);
        assertThat(mooncake.get(mooncake.size() - 1).arrivalMicros()).isEqualTo(3_536_999_000L);
        List<SimRequest> azure = TraceReplay.load(SHARED.resolve("azure/AzureLLMInferenceTrace_conv.csv"),
                TraceFormat.AZURE, f512, 0);
        assertThat(azure).hasSize(19_366);
    }
}
