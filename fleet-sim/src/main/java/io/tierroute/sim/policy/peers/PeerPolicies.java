package io.tierroute.sim.policy.peers;

import io.tierroute.sim.policy.PolicyRegistry;
import io.tierroute.sim.policy.peers.dynamo.DynamoConfig;
import io.tierroute.sim.policy.peers.dynamo.DynamoPolicy;
import io.tierroute.sim.policy.peers.llmd.LlmdConfig;
import io.tierroute.sim.policy.peers.llmd.LlmdPolicy;
import io.tierroute.sim.policy.peers.sglang.CacheAwareConfig;
import io.tierroute.sim.policy.peers.sglang.CacheAwarePolicy;

/**
 * Registers the peer routers of PEERS.md (SGLang cache_aware, Dynamo 2026 / 2025 / approximate, llm-d
 * precise / approximate / tiered CPU) with the registry, one method per family.
 */
public final class PeerPolicies {

    private PeerPolicies() {}

    public static void register(PolicyRegistry r) {
        registerSglang(r);
        registerDynamo(r);
        registerLlmd(r);
    }

    private static void registerSglang(PolicyRegistry r) {
        for (CacheAwareConfig c : new CacheAwareConfig[] {CacheAwareConfig.pythonCli(), CacheAwareConfig.rust()}) {
            r.register(c.name(), setup -> new CacheAwarePolicy(c, setup.fleet().workers(), setup.fleet().blockSize(),
                    setup.seed()));
        }
    }

    private static void registerDynamo(PolicyRegistry r) {
        for (DynamoConfig c : new DynamoConfig[] {DynamoConfig.v2026(), DynamoConfig.v2025(), DynamoConfig.approximate()}) {
            r.register(c.name(), setup -> new DynamoPolicy(c, setup.fleet().workers(), setup.seed()));
        }
    }

    private static void registerLlmd(PolicyRegistry r) {
        for (LlmdConfig c : new LlmdConfig[] {LlmdConfig.precise(), LlmdConfig.approximate(), LlmdConfig.tieredCpu()}) {
            r.register(c.name(), setup -> new LlmdPolicy(c, setup.fleet(), setup.seed()));
        }
    }
}
