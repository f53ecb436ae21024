package io.tierroute.sim.policy;

import io.tierroute.sim.policy.baseline.LeastLoadedPolicy;
import io.tierroute.sim.policy.baseline.RandomPolicy;
import io.tierroute.sim.policy.baseline.RoundRobinPolicy;
import io.tierroute.sim.policy.oracle.OraclePolicy;
import io.tierroute.sim.policy.oracle.OraclePricing;
import io.tierroute.sim.policy.peers.PeerPolicies;
import io.tierroute.sim.policy.tierroute.TierroutePolicy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every routing policy the benchmark can run, by name, listed explicitly one family per method
 * (as Caffeine's simulator registry does): no classpath scanning, so the list is what you read here.
 */
public final class PolicyRegistry {

    private final Map<String, PolicyFactory> factories = new LinkedHashMap<>();

    /** The registry with every family: baselines, tierroute, oracle, and the peers of PEERS.md. */
    public PolicyRegistry() {
        registerBaselines();
        registerTierroute();
        registerOracle();
        PeerPolicies.register(this);
    }

    private void registerBaselines() {
        register(RoundRobinPolicy.NAME, setup -> new RoundRobinPolicy());
        register(RandomPolicy.NAME, setup -> new RandomPolicy(setup.seed()));
        register(LeastLoadedPolicy.NAME, setup -> new LeastLoadedPolicy(setup.fleet().workers(), setup.seed()));
    }

    private void registerTierroute() {
        register(TierroutePolicy.DEFAULT_NAME, TierroutePolicy::withDefaults);
        register(TierroutePolicy.FITTED_NAME, TierroutePolicy::fitted);
        register(TierroutePolicy.GATED_NAME, TierroutePolicy::gated);
        register(TierroutePolicy.CLAIMS_NAME, TierroutePolicy::withClaims);
        register(TierroutePolicy.TWO_REPLICAS_NAME, TierroutePolicy::twoReplicas);
        register(TierroutePolicy.TWO_SYNCED_REPLICAS_NAME, TierroutePolicy::twoSyncedReplicas);
        register(TierroutePolicy.TWO_DIRECT_REPLICAS_NAME, TierroutePolicy::twoDirectReplicas);
    }

    private void registerOracle() {
        for (OraclePricing pricing : OraclePricing.values()) {
            register(pricing.policyName(), setup -> new OraclePolicy(setup.fleet(), pricing, setup.seed()));
        }
    }

    /** Adds a policy; a name may be registered once. */
    public void register(String name, PolicyFactory factory) {
        if (factories.putIfAbsent(name, factory) != null) {
            throw new IllegalArgumentException("policy '" + name + "' is registered twice");
        }
    }

    /** A fresh instance of the policy {@code name} for one run. */
    public RoutingPolicy create(String name, PolicySetup setup) {
        PolicyFactory f = factories.get(name);
        if (f == null) {
            throw new IllegalArgumentException("unknown policy '" + name + "'; known: " + String.join(", ", names()));
        }
        return f.create(setup);
    }

    public boolean contains(String name) {
        return factories.containsKey(name);
    }

    /** Registered names, in registration order. */
    public List<String> names() {
        return Collections.unmodifiableList(new ArrayList<>(factories.keySet()));
    }
}
