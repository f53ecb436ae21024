package io.tierroute.cli.cluster;

import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.kafka.DecisionPublisher;
import io.tierroute.selector.kafka.ParameterLoader;
import io.tierroute.selector.kafka.SnapshotConverter;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.WorkerRegistry;
import io.tierroute.sim.live.FleetPublisher;
import io.tierroute.sim.live.LiveFleet;
import io.tierroute.sim.live.LiveWorkload;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Generated input for a fitting job on a real cluster, wired as the demo wires it: the fleet simulator
 * replays the Mooncake trace in live mode (telemetry, KV events, completions to Kafka), routed by a real
 * selector whose decisions go to Kafka and whose parameters a {@link ParameterLoader} hot-reloads from
 * tierroute.params. {@link #stopFleet} ends the input; {@link #close} stops everything.
 */
final class LiveInput implements AutoCloseable {

    static final Path TRACE = Path.of("..", "..", "shared", "traces", "mooncake", "conversation_trace.jsonl");
    static final int WORKERS = 8;

    private final List<AutoCloseable> closers = new ArrayList<>();
    final ParameterStore store;
    final ParameterLoader loader;
    final FleetPublisher publisher;
    final LiveFleet fleet;

    LiveInput(String bootstrap, double timeScale, long seed) throws Exception {
        LiveWorkload work = LiveWorkload.load(TRACE, null, WORKERS, 1, 0, seed);
        List<String> workers = LiveFleet.workerNames(WORKERS);
        KafkaSettings ks = KafkaSettings.defaults(bootstrap).withScope("default")
                .withKvEvents(new KafkaSettings.KvEvents(false, "latest"));
        store = new ParameterStore(ParameterSet.defaults(WORKERS));
        loader = new ParameterLoader(ks, store, new SnapshotConverter(new WorkerRegistry(workers), CostParameters.DEFAULTS, 0.5))
                .start();
        closers.add(loader);
        if (!loader.awaitReady(Duration.ofSeconds(60))) {
            close();
            throw new IllegalStateException("the parameter loader did not catch up within 60 s");
        }
        DecisionPublisher decisions = new DecisionPublisher(ks, work.engines().model()).start();
        closers.add(decisions);
        publisher = new FleetPublisher(bootstrap, WORKERS, work.engines().model());
        closers.add(publisher);
        fleet = new LiveFleet(work.engines(), work.requests(), timeScale, "default", store, decisions, publisher, seed);
        closers.add(fleet);
        fleet.start();
    }

    void stopFleet() throws InterruptedException {
        fleet.stop();
    }

    @Override
    public void close() throws Exception {
        for (int i = closers.size() - 1; i >= 0; i--) {
            closers.get(i).close();
        }
        closers.clear();
    }
}
