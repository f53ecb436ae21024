package io.tierroute.selector.server;

import io.tierroute.selector.config.AccessSettings;
import io.tierroute.selector.config.SelectorConfig;
import io.tierroute.selector.config.ServerSettings;
import io.tierroute.selector.http.ApiHandler;
import io.tierroute.selector.http.Credentials;
import io.tierroute.selector.index.PrefixIndex;
import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.ingest.KvEventPipeline;
import io.tierroute.selector.kafka.KafkaServices;
import io.tierroute.selector.metrics.SelectorMetrics;
import io.tierroute.selector.params.ParameterFile;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.scheduling.WorkerSpec;
import io.undertow.Undertow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLContext;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The selector as a process: wires configuration → prefix index → index writer pipeline →
 * selector → (Kafka parts, with a {@code kafka} section) → HTTP API, and owns the threads (the index
 * writer, a scheduler that calls {@link Selector#tick()} every 100 ms, the Kafka loader, consumer and
 * producer threads, Undertow's I/O and worker threads). {@link #start} returns
 * once the listener is bound; {@link #close} stops everything in reverse order.
 */
public final class SelectorServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SelectorServer.class);
    private static final long TICK_MILLIS = 100;
    /** How long a stop lets the requests being answered finish before the listener closes. */
    static final long STOP_GRACE_MILLIS = 2_000;

    private final SelectorConfig config;
    private final PrefixIndex index;
    private final KvEventPipeline pipeline;
    private final ParameterStore params;
    private final Selector selector;
    private final SelectorMetrics metrics;
    private final KafkaServices kafka; // null without a kafka section
    private final ScheduledExecutorService scheduler;
    private final Undertow undertow;
    /** Counts the requests being answered, so a stop can let them finish; answers new ones 503 once stopping. */
    private final StoppingGate graceful;
    private final InetSocketAddress address;
    private volatile boolean closed;

    private SelectorServer(SelectorConfig config, UnaryOperator<String> env, boolean jvmMetrics) {
        this.config = config;
        List<WorkerSpec> workers = config.selector().workers();
        List<String> names = workers.stream().map(WorkerSpec::name).toList();
        this.index = RunPrefixIndex.builder().workers(workers.size()).maxBlocks(config.indexMaxBlocks()).build();
        this.pipeline = new KvEventPipeline(index, config.indexQueueCapacity());
        ParameterSet initial = config.initialParameters();
        boolean kafkaParams = config.kafka() != null && config.kafka().params().enabled();
        if (kafkaParams && !initial.scope().equals(config.kafka().scope())) {
            initial = initial.toBuilder().scope(config.kafka().scope()).build(); // until the first snapshot
        }
        this.params = new ParameterStore(initial);
        this.selector = new Selector(config.selector(), index, pipeline, params, System::nanoTime);
        this.metrics = new SelectorMetrics(selector, pipeline, jvmMetrics);
        // With the Kafka loader on, the topics own the parameters: a file reload would silently replace a
        // pinned or fitted version until the next swap, so POST /v1/params/reload is refused (409).
        Supplier<ParameterSet> reloader = config.parametersFile() == null || kafkaParams ? null
                : () -> ParameterFile.load(config.parametersFile(), names, config.cost());
        if (config.kafka() != null) {
            try {
                // Before the listener: a start-up applies the topics' parameters before the first route.
                this.kafka = KafkaServices.start(config.kafka(), selector, params, pipeline, config.cost(),
                        initial.outputQuantile(), env);
            } catch (RuntimeException e) {
                pipeline.close();
                throw new IllegalStateException("cannot start the Kafka parts (kafka.bootstrapServers "
                        + config.kafka().bootstrapServers() + "): " + causes(e), e);
            }
            try {
                kafka.report().register(metrics);
            } catch (RuntimeException e) {
                kafka.close();
                pipeline.close();
                throw e;
            }
        } else {
            this.kafka = null;
        }
        ServerSettings s = config.server();
        SSLContext ssl;
        try {
            ssl = s.tls() == null ? null : Https.context(s.tls(), env);
        } catch (RuntimeException e) {
            if (kafka != null) {
                kafka.close();
            }
            pipeline.close();
            throw e;
        }
        AccessSettings access = config.access();
        Credentials credentials = new Credentials(lookup(env, config.adminTokenEnv()),
                lookup(env, access.readTokenEnv()), lookup(env, access.dataTokenEnv()));
        ApiHandler api = new ApiHandler(selector, pipeline, metrics, s, access, credentials, config.adminTokenEnv(),
                reloader, kafka == null ? null : kafka::status, kafka == null ? null : kafka::stopped);

        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tierroute-tick");
            t.setDaemon(true);
            return t;
        });
        scheduler.scheduleAtFixedRate(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);

        this.graceful = new StoppingGate(api);
        Undertow u;
        try {
            u = ApiListener.start(s, ssl, graceful, metrics);
        } catch (RuntimeException e) {
            scheduler.shutdownNow();
            if (kafka != null) {
                kafka.close();
            }
            pipeline.close();
            throw e;
        }
        this.undertow = u;
        this.address = ApiListener.address(u);
        log.info("tierroute selector listening on {} ({} workers, parameters {} v{})", uri(), workers.size(),
                params.current().scope(), params.current().version());
        for (String w : config.warnings()) {
            log.warn("configuration{}: {}", config.source() == null ? "" : " " + config.source(), w);
        }
    }

    /** Starts a server; tokens and the key store password come from the environment variables the config names. */
    public static SelectorServer start(SelectorConfig config) {
        return startWith(config, System::getenv, true);
    }

    /**
     * Starts a server with an explicit admin token (null refuses all admin calls); the other secrets come
     * from the environment. {@code jvmMetrics} adds the JVM collectors to {@code /metrics}.
     */
    public static SelectorServer start(SelectorConfig config, String adminToken, boolean jvmMetrics) {
        String adminEnv = config.adminTokenEnv();
        return startWith(config, name -> name.equals(adminEnv) ? adminToken : System.getenv(name), jvmMetrics);
    }

    /**
     * Starts a server that looks its secrets up with {@code env} (an environment variable's value by name,
     * null when unset): the admin, read and data tokens, the TLS key store password and the replica key.
     */
    public static SelectorServer startWith(SelectorConfig config, UnaryOperator<String> env, boolean jvmMetrics) {
        return new SelectorServer(config, env, jvmMetrics);
    }

    /**
     * Every message of {@code e}'s cause chain: the client's own ("Failed to construct kafka producer") says nothing of
     * why; its cause does ("No resolvable bootstrap urls given in bootstrap.servers": a host that does not resolve).
     * deploy's {@code KafkaClientErrors.describe} does the same for the CLI; the selector may not depend on deploy.
     */
    private static String causes(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null && b.length() < 1_000; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getMessage() != null && !b.toString().contains(t.getMessage())) {
                b.append(b.length() == 0 ? "" : ": ").append(t.getMessage());
            }
        }
        return b.length() == 0 ? e.toString() : b.toString();
    }

    /** A token variable's value, stripped (a mounted secret's trailing newline) and null when it holds none. */
    private static String lookup(UnaryOperator<String> env, String name) {
        return TokenVariable.read(name, env);
    }

    private void tick() {
        try {
            selector.tick();
        } catch (RuntimeException e) {
            log.error("selector tick failed", e);
        }
    }

    /** The base URI, e.g. {@code http://127.0.0.1:8080} ({@code https} with {@code server.tls}). */
    public URI uri() {
        return ApiListener.uri(address, config.server().tls() != null);
    }

    public int port() { return address.getPort(); }
    public Selector selector() { return selector; }
    public KvEventPipeline pipeline() { return pipeline; }
    public ParameterStore parameters() { return params; }
    public SelectorMetrics metrics() { return metrics; }
    /** The Kafka parts, or null without a {@code kafka} section. */
    public KafkaServices kafka() { return kafka; }
    public SelectorConfig config() { return config; }

    /**
     * Stops accepting requests (a new one gets 503), answers the routes waiting in the admission queue with 503 and
     * Retry-After, lets the requests being answered finish (at most {@link #STOP_GRACE_MILLIS}), then stops the
     * listener, the tick scheduler and the index writer. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        graceful.stop();
        int failed = selector.failQueued(StoppingGate.STOPPING);
        try {
            if (!graceful.awaitAnswered(STOP_GRACE_MILLIS)) {
                log.warn("stopping with requests still being answered after {} ms", STOP_GRACE_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failed > 0) {
            log.info("answered {} queued routes with 503 (stopping)", failed);
        }
        undertow.stop();
        scheduler.shutdownNow();
        try {
            scheduler.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (kafka != null) {
            kafka.close(); // the decisions producer flushes; the KV consumer stops before its writer
        }
        pipeline.close();
        log.info("tierroute selector on port {} stopped", address.getPort());
    }
}
