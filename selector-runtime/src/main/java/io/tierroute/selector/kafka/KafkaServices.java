package io.tierroute.selector.kafka;

import io.tierroute.schemas.Topics;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.ingest.IndexWriter;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.scheduling.Selector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;

/**
 * The Kafka parts of one selector process, started and stopped together by {@code SelectorServer}:
 * the {@link ParameterLoader}, the {@link KvEventConsumer}, the {@link DecisionPublisher} and replica sync
 * ({@link ReplicaSyncLink}), each only when its {@code enabled} flag is on. Their metrics and the status block of {@code GET /v1/params}
 * come from {@link KafkaPartsReport}.
 */
public final class KafkaServices implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(KafkaServices.class);

    private final KafkaSettings settings;
    private final Selector selector;
    private final ParameterLoader loader;       // null when off
    private final KvEventConsumer kvConsumer;   // null when off
    private final DecisionPublisher decisions;  // null when off
    private final ReplicaSyncLink replicaSync;  // null when off
    private final KafkaPartsReport report;

    private KafkaServices(KafkaSettings settings, Selector selector, ParameterLoader loader, KvEventConsumer kv,
                          DecisionPublisher decisions, ReplicaSyncLink replicaSync) {
        this.settings = settings;
        this.selector = selector;
        this.loader = loader;
        this.kvConsumer = kv;
        this.decisions = decisions;
        this.replicaSync = replicaSync;
        this.report = new KafkaPartsReport(settings.bootstrapServers(), settings.scope(), selector, loader, kv, decisions,
                replicaSync);
    }

    /**
     * Starts the enabled parts. With the parameter loader on, waits up to
     * {@code params.startupTimeout} for it to catch up; when it has not and
     * {@code params.requireOnStart} is set, stops everything and throws.
     *
     * @param base           the configured cost parameters (rhoThreshold, rhoEpsilon come from here)
     * @param outputQuantile the configured output quantile
     */
    public static KafkaServices start(KafkaSettings settings, Selector selector, ParameterStore store, IndexWriter writer,
                                      CostParameters base, double outputQuantile) {
        return start(settings, selector, store, writer, base, outputQuantile, System::getenv);
    }

    /**
     * As {@link #start(KafkaSettings, Selector, ParameterStore, IndexWriter, CostParameters, double)}, looking up the
     * replica key ({@code replicaSync.direct.keyEnv}) with {@code env}.
     */
    public static KafkaServices start(KafkaSettings settings, Selector selector, ParameterStore store, IndexWriter writer,
                                      CostParameters base, double outputQuantile,
                                      java.util.function.UnaryOperator<String> env) {
        ParameterLoader loader = null;
        KvEventConsumer kv = null;
        DecisionPublisher decisions = null;
        ReplicaSyncLink sync = null;
        if (settings.replicaSync().enabled() && settings.replicaSync().direct().enabled()) {
            ReplicaSyncLink.directKey(settings.replicaSync().direct(), env); // before anything starts: fails at once
        }
        try {
            if (settings.params().enabled()) {
                loader = new ParameterLoader(settings, store,
                        new SnapshotConverter(selector.registry(), base, outputQuantile)).start();
            }
            if (settings.kvEvents().enabled()) {
                kv = new KvEventConsumer(settings, selector.registry(), writer, selector.unpricedTiers()).start();
            }
            if (settings.decisions().enabled()) {
                decisions = new DecisionPublisher(settings, selector.settings().model()).start();
                selector.decisionSink(decisions);
            }
            if (settings.replicaSync().enabled()) {
                sync = ReplicaSyncLink.start(settings, selector, REPLICA_SYNC_ASSIGN_TIMEOUT, env);
                log.info("kafka: replica sync on as '{}' ({})", sync.replicaId(), settings.selectorId());
            }
            KafkaServices services = new KafkaServices(settings, selector, loader, kv, decisions, sync);
            if (loader != null) {
                long t0 = System.nanoTime();
                boolean ready = loader.awaitReady(settings.params().startupTimeout());
                if (ready) {
                    log.info("kafka: parameters of scope '{}' at version {} after {} ms", settings.scope(),
                            loader.status().appliedVersion(), (System.nanoTime() - t0) / 1_000_000);
                } else if (settings.params().requireOnStart()) {
                    services.close();
                    throw new IllegalStateException("the parameter loader did not catch up with " + Topics.PARAMS
                            + " and " + Topics.CONTROL + " at " + settings.bootstrapServers() + " within "
                            + settings.params().startupTimeout().toMillis() + " ms (kafka.params.requireOnStart is true)"
                            + lastProblem(loader.status().lastError()));
                } else {
                    log.warn("kafka: the parameter loader has not caught up within {} ms; serving the configured "
                            + "parameters until it does", settings.params().startupTimeout().toMillis());
                }
            }
            return services;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            IllegalStateException failure = new IllegalStateException("interrupted while starting the Kafka parts", e);
            closeAfter(failure, selector, loader, kv, decisions, sync);
            throw failure;
        } catch (RuntimeException e) {
            closeAfter(e, selector, loader, kv, decisions, sync);
            throw e;
        }
    }

    public ParameterLoader loader() { return loader; }
    public KvEventConsumer kvConsumer() { return kvConsumer; }
    public DecisionPublisher decisions() { return decisions; }
    /** Replica sync, or null when off. */
    public ReplicaSyncLink replicaSync() { return replicaSync; }
    public KafkaSettings settings() { return settings; }

    /** The status block and metrics of these parts. */
    public KafkaPartsReport report() { return report; }

    /** The status block of {@code GET /v1/params}. */
    public Map<String, Object> status() {
        return report.status();
    }

    /** The parts an Error stopped for good, with why, or null while all run ({@link KafkaPartsReport#stopped()}). */
    public String stopped() {
        return report.stopped();
    }

    /**
     * Closes each part, each on its own: one that throws does not leave the others running (the first failure is thrown
     * after all were closed, the others logged).
     */
    private static void closeAll(Selector selector, ParameterLoader loader, KvEventConsumer kv, DecisionPublisher d,
                                 ReplicaSyncLink sync) {
        PartClosing closing = new PartClosing(log);
        if (sync != null) {
            closing.close("replica sync", sync::close);
        }
        if (d != null) {
            closing.close("decisions publisher", () -> {
                selector.decisionSink(null);
                d.close();
            });
        }
        if (kv != null) {
            closing.close("kv consumer", kv::close);
        }
        if (loader != null) {
            closing.close("params loader", loader::close);
        }
        closing.done();
    }

    /** Closes what a failed start had started; a failure to close is attached to {@code failure}, which goes on. */
    private static void closeAfter(RuntimeException failure, Selector selector, ParameterLoader loader,
                                   KvEventConsumer kv, DecisionPublisher d, ReplicaSyncLink sync) {
        try {
            closeAll(selector, loader, kv, d, sync);
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /** Stops replica sync, the decisions producer (after unhooking it from the selector), the KV consumer and the loader. */
    @Override
    public void close() {
        closeAll(selector, loader, kvConsumer, decisions, replicaSync);
    }

    /** How long the start waits for the replica sync consumer to be positioned (it keeps trying after). */
    static final java.time.Duration REPLICA_SYNC_ASSIGN_TIMEOUT = java.time.Duration.ofSeconds(10);

    /**
     * Why the loader has not caught up, when it knows (an unreachable or refusing broker shows here), for a start that
     * is refused: without the outage line's "serving parameter version V meanwhile", which a selector that does not
     * start does not do.
     */
    static String lastProblem(String lastError) {
        return lastError == null ? "" : "; last problem: " + OutageReport.withoutServing(lastError);
    }
}
