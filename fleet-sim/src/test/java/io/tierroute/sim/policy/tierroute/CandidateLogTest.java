package io.tierroute.sim.policy.tierroute;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.sim.engine.EngineConfig;
import io.tierroute.sim.engine.Simulation;
import io.tierroute.sim.policy.PolicySetup;
import io.tierroute.sim.policy.RoutingPolicy;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.workload.RequestFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The diagnosis switch {@code -Dtr.candLog}: one line per candidate with its terms, and the same route as without it. */
class CandidateLogTest {

    private final EngineConfig cfg = EngineConfig.builder().workers(4).blockSize(16).hbmCapacityTokens(16_384).build();
    private final RequestFactory f = new RequestFactory(cfg.model(), 16);

    private int routeWithPrefixOnWorker2(SimRequest r) {
        Simulation sim = new Simulation(cfg, List.of(r));
        RoutingPolicy p = TierroutePolicy.withDefaults(new PolicySetup(sim.fleetView(), 42, null));
        // Worker 2 reports the first 200 blocks (3,200 tokens) stored in HBM.
        p.onKvEvent(new KvEvent.Stored(2, Tier.HBM, false, 0, Arrays.copyOf(r.blockHashes(), 200)), 0);
        return p.route(r, sim.fleetView(), 0);
    }

    @Test
    void writesEveryCandidatesTermsAndRoutesAsWithoutTheLog(@TempDir Path dir) throws IOException {
        long[] ids = new long[250];
        Arrays.setAll(ids, i -> 7 + i);
        SimRequest r = f.request("r", 0, 4000, ids, 64, 32, null);
        int without = routeWithPrefixOnWorker2(r);
        int with;
        System.setProperty(CandidateLog.PROPERTY, dir.resolve("cand").toString());
        try {
            with = routeWithPrefixOnWorker2(r);
        } finally {
            System.clearProperty(CandidateLog.PROPERTY);
        }
        assertThat(with).isEqualTo(without).isEqualTo(2);
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.toList();
        }
        assertThat(files).hasSize(1);
        List<String> lines = Files.readAllLines(files.get(0));
        assertThat(lines.get(0)).startsWith("# tierroute");
        List<String> header = List.of(lines.get(1).split(","));
        List<String[]> rows = lines.subList(2, lines.size()).stream().map(l -> l.split(",")).toList();
        assertThat(rows).hasSize(4); // one line per candidate worker
        int worker = header.indexOf("worker"), chosen = header.indexOf("chosen"), hit = header.indexOf("hit"),
                pEff = header.indexOf("p_eff"), total = header.indexOf("total");
        assertThat(rows).extracting(x -> x[0]).containsOnly("r");
        assertThat(rows).extracting(x -> x[worker]).containsExactly("0", "1", "2", "3");
        assertThat(rows).extracting(x -> x[chosen]).containsOnly("2");
        assertThat(rows.get(2)[hit]).isEqualTo("3200");
        assertThat(rows.get(2)[pEff]).isEqualTo("800");
        assertThat(rows.get(0)[pEff]).isEqualTo("4000");
        double chosenTotal = Double.parseDouble(rows.get(2)[total]);
        assertThat(rows).allSatisfy(x -> assertThat(Double.parseDouble(x[total])).isGreaterThanOrEqualTo(chosenTotal));
    }
}
