package io.tierroute.sim.workload;

import io.tierroute.sim.engine.EngineConfig;
import io.tierroute.sim.policy.SimRequest;

import java.util.List;

/**
 * A generated workload: a seeded, documented stream of requests at its base rate ("load 1"). The
 * benchmark scales time for other loads ({@link Workloads#atLoad}).
 */
public interface Workload {

    String name();

    /** One line: what it models and its distributions' key parameters. */
    String description();

    /** The requests, sorted by arrival; the same seed gives the same list. */
    List<SimRequest> generate(RequestFactory factory, long seed);

    /** Engine settings this workload is about (e.g. a slower link); default: unchanged. */
    default EngineConfig.Builder tune(EngineConfig.Builder engine) {
        return engine;
    }
}
