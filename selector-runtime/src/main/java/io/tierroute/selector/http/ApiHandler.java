package io.tierroute.selector.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.tierroute.schemas.JsonWire;
import io.tierroute.selector.config.AccessSettings;
import io.tierroute.selector.config.ConfigException;
import io.tierroute.selector.config.ServerSettings;
import io.tierroute.selector.ingest.IndexWriter;
import io.tierroute.selector.metrics.SelectorMetrics;
import io.tierroute.selector.metrics.SelectorMetrics.RouteOutcome;
import io.tierroute.selector.params.ParameterFile;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.scheduling.NoCapacityException;
import io.tierroute.selector.scheduling.PromptTooLargeException;
import io.tierroute.selector.scheduling.RouteDecision;
import io.tierroute.selector.scheduling.RouteRequest;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.scheduling.WorkerView;
import io.tierroute.selector.sequences.DuplicateRequestException;
import io.tierroute.selector.sequences.RequestEvent;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.AttachmentKey;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import io.undertow.util.Methods;
import io.undertow.util.SameThreadExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.CharConversionException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * The HTTP/JSON API on Undertow's core handler interface. Small bodies are parsed and routed on the
 * I/O thread (a route never blocks: the selector is lock-free on its read path); file I/O (param
 * reload) and metric scrapes move to a worker thread. Every client error becomes a 4xx with a JSON
 * {@code {"error": "..."}} that says what is wrong; only bugs give 500, and those are logged.
 */
public final class ApiHandler implements HttpHandler {

    private static final Logger log = LoggerFactory.getLogger(ApiHandler.class);
    private static final String JSON_TYPE = "application/json";

    private final Selector selector;
    private final SelectorMetrics metrics;
    private final AccessControl access;
    private final Supplier<ParameterSet> reloader; // null: no parameter file configured
    private final Object reloadLock = new Object();
    private final Endpoints endpoints;
    private final BodyReader bodies;
    private final Supplier<Map<String, Object>> kafkaStatus; // null: no Kafka
    private final Supplier<String> kafkaStopped;             // null: no Kafka

    /**
     * @param selector      the selector to route with
     * @param writer        where KV events go (the index writer pipeline)
     * @param metrics       the server's metrics
     * @param server        the listener's bounds (maxBodyBytes, maxBatchEvents)
     * @param accessSettings which route groups are open ({@code access:})
     * @param credentials   the tokens (admin, read, data), each null when not set
     * @param adminTokenEnv the environment variable the admin token comes from (for messages)
     * @param reloader      re-reads the parameter file (throws {@link ConfigException}), or null when none is configured
     * @param kafkaStatus   the {@code kafka} block of {@code GET /v1/params} (loader readiness, versions and pins per
     *                      scope, consumer and producer counters), or null without Kafka
     */
    public ApiHandler(Selector selector, IndexWriter writer, SelectorMetrics metrics, ServerSettings server,
                      AccessSettings accessSettings, Credentials credentials, String adminTokenEnv,
                      Supplier<ParameterSet> reloader, Supplier<Map<String, Object>> kafkaStatus) {
        this(selector, writer, metrics, server, accessSettings, credentials, adminTokenEnv, reloader, kafkaStatus, null);
    }

    /**
     * As above, with {@code kafkaStopped}: which Kafka parts an Error stopped for good and why, or null while all run
     * ({@code KafkaPartsReport.stopped}); {@code /healthz} answers 503 with it. Null without Kafka.
     */
    public ApiHandler(Selector selector, IndexWriter writer, SelectorMetrics metrics, ServerSettings server,
                      AccessSettings accessSettings, Credentials credentials, String adminTokenEnv,
                      Supplier<ParameterSet> reloader, Supplier<Map<String, Object>> kafkaStatus,
                      Supplier<String> kafkaStopped) {
        this.kafkaStatus = kafkaStatus;
        this.kafkaStopped = kafkaStopped;
        this.selector = selector;
        this.metrics = metrics;
        this.access = new AccessControl(accessSettings, credentials, adminTokenEnv);
        this.reloader = reloader;
        this.endpoints = new Endpoints(selector, writer, metrics, server.maxBatchEvents());
        this.bodies = new BodyReader(server.maxBodyBytes(), server.bodyTimeoutMs(), this::error);
    }

    @FunctionalInterface
    private interface BodyHandler {
        /** {@code body[0, length)} is the request body; the array may be a reused buffer, so copy what you keep. */
        void handle(HttpServerExchange ex, byte[] body, int length) throws IOException;
    }

    /** Wraps a handler that wants an exact-size array of its own. */
    private interface ExactBodyHandler {
        void handle(HttpServerExchange ex, byte[] body) throws IOException;
    }

    private static BodyHandler exact(ExactBodyHandler h) {
        return (e, body, length) -> h.handle(e, body.length == length ? body : Arrays.copyOf(body, length));
    }


    /**
     * The largest request entity the listener may let through to this handler for a body limit of
     * {@code maxBodyBytes}: the limit plus what a too-large body of unknown length is read past it and discarded
     * before the 413, and as much again. Beyond it Undertow cuts the connection itself (its own default, 2 MiB, would
     * otherwise cap every body whatever {@code server.maxBodyBytes} says).
     */
    public static long maxEntityBytes(int maxBodyBytes) {
        return (long) maxBodyBytes + 2L * BodyReader.DRAIN_LIMIT;
    }

    @Override
    public void handleRequest(HttpServerExchange ex) {
        try {
            dispatch(ex);
        } catch (ApiError e) {
            error(ex, e.status, e.getMessage());
        } catch (RuntimeException e) {
            log.error("internal error on {} {}", ex.getRequestMethod(), ex.getRequestPath(), e);
            error(ex, 500, "internal error: " + e);
        }
    }

    private void dispatch(HttpServerExchange ex) {
        String path = ex.getRelativePath();
        Route route = Route.match(path);
        if (route == null) {
            throw new ApiError(404, "no such endpoint: " + path + " (see GET /v1/workers, POST /v1/route, "
                    + "/v1/requests/events, /v1/kv-events, /v1/telemetry, GET /v1/params, /metrics, /healthz; "
                    + "admin: POST /v1/params/reload, /v1/workers/{name}/drain, /undrain, /health)");
        }
        method(ex, route.method());
        access.check(ex, route);
        if (route != Route.ROUTE && route.method().equals(Methods.POST)) {
            RouteQuery.refuseAny(ex);
        }
        if ((route == Route.WORKER_DRAIN || route == Route.WORKER_UNDRAIN || route == Route.PARAMS_RELOAD)
                && (ex.getRequestContentLength() > 0 || ex.getRequestHeaders().contains(Headers.TRANSFER_ENCODING))) {
            actOnPathOnceTheBodyIsEmpty(ex, route, path);
            return;
        }
        switch (route) {
            case ROUTE -> {
                long start = System.nanoTime();
                boolean dryRun;
                try {
                    dryRun = RouteQuery.dryRun(ex);
                } catch (ApiError e) {
                    metrics.route(RouteOutcome.INVALID, System.nanoTime() - start);
                    throw e;
                }
                // From here every answer counts the route once: those that refuse its body before route() runs (empty,
                // not UTF-8, too large, too slow, an encoding) through error().
                ex.putAttachment(ROUTE_TALLY, new RouteTally(dryRun, start));
                post(ex, (e, body, length) -> route(e, dryRun, body, length, start));
            }
            case REQUEST_EVENTS -> post(ex, exact((e, body) -> send(e, endpoints.requestEvents(body))));
            case KV_EVENTS -> post(ex, exact((e, body) -> send(e, endpoints.kvEvents(e, body))));
            case TELEMETRY -> post(ex, exact((e, body) -> send(e, endpoints.telemetry(body))));
            case WORKERS -> send(ex, new Endpoints.Reply(200, workers()));
            case PARAMS -> {
                Map<String, Object> body = params(selector.parameters().current());
                if (kafkaStatus != null) {
                    body.put("kafka", kafkaStatus.get());
                }
                send(ex, new Endpoints.Reply(200, body));
            }
            case PARAMS_RELOAD -> {
                if (ex.isInIoThread()) {
                    ex.dispatch(this); // file I/O: off the I/O thread
                    return;
                }
                reload(ex);
            }
            case WORKER_DRAIN, WORKER_UNDRAIN, WORKER_HEALTH -> workerAdmin(ex, route, Route.workerName(path));
            case METRICS -> {
                if (ex.isInIoThread()) {
                    ex.dispatch(this);
                    return;
                }
                scrape(ex);
            }
            case HEALTHZ -> {
                String stopped = endpoints.indexWriterFailure();
                if (stopped != null) { // the process serves stale routes for good: let the orchestrator restart it
                    throw new ApiError(503, "the index writer has stopped (" + stopped + "): KV events are no longer "
                            + "applied; restart the selector");
                }
                String kafka = kafkaStopped == null ? null : kafkaStopped.get();
                if (kafka != null) { // frozen parameters, a stale index or nothing published, for good: the same
                    throw new ApiError(503, "a Kafka part has stopped (" + kafka + "); restart the selector");
                }
                metrics.httpStatus(200);
                ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "text/plain; charset=utf-8");
                ex.getResponseSender().send("ok");
            }
        }
    }

    private static void method(HttpServerExchange ex, HttpString allowed) {
        // HEAD is GET without the body (RFC 9110 §9.3.2; Undertow drops the body): probes and load balancers use it.
        boolean head = allowed.equals(Methods.GET) && ex.getRequestMethod().equals(Methods.HEAD);
        if (!ex.getRequestMethod().equals(allowed) && !head) {
            ex.getResponseHeaders().put(Headers.ALLOW, allowed.equals(Methods.GET) ? "GET, HEAD" : allowed.toString());
            throw new ApiError(405, "method " + ex.getRequestMethod() + " not allowed on " + ex.getRelativePath()
                    + "; use " + allowed);
        }
    }

    /**
     * Drain, undrain and reload act on the path alone: a body with something in it (say {@code {"dry_run": true}}, or
     * a health body sent to the drain by mistake) would otherwise be ignored while the action goes ahead, so it is
     * refused. An empty one (whitespace, {@code {}} as JSON client libraries send, an empty chunked body) is read first.
     */
    private void actOnPathOnceTheBodyIsEmpty(HttpServerExchange ex, Route route, String path) {
        bodies.read(ex, (e, body, length) -> {
            if (!blankOrEmptyObject(body, length)) {
                error(e, 400, e.getRequestMethod() + " " + e.getRelativePath()
                        + " takes no body; send none (nothing was done)");
                return;
            }
            Runnable act = () -> {
                try {
                    if (route == Route.PARAMS_RELOAD) {
                        reload(e);
                    } else {
                        workerAdmin(e, route, Route.workerName(path));
                    }
                } catch (ApiError err) {
                    error(e, err.status, err.getMessage());
                } catch (RuntimeException err) {
                    // Dispatched as a bare task: an escaping exception would leave the client without an answer until
                    // the idle timeout.
                    log.error("internal error on {} {}", e.getRequestMethod(), e.getRequestPath(), err);
                    error(e, 500, "internal error: " + err);
                }
            };
            if (route == Route.PARAMS_RELOAD && e.isInIoThread()) {
                e.dispatch(act); // file I/O: off the I/O thread
            } else {
                act.run();
            }
        });
    }

    /** Whether {@code body[0, length)} is only JSON whitespace, or an empty object. */
    static boolean blankOrEmptyObject(byte[] body, int length) {
        String text = new String(body, 0, length, java.nio.charset.StandardCharsets.ISO_8859_1).strip();
        return text.isEmpty() || text.replaceAll("[ \\t\\r\\n]", "").equals("{}");
    }

    /** Reads the whole body (bounded) and hands it to {@code h}; on the I/O thread when it is already there. */
    private void post(HttpServerExchange ex, BodyHandler h) {
        method(ex, Methods.POST);
        String encoding = ex.getRequestHeaders().getFirst(Headers.CONTENT_ENCODING);
        if (encoding != null && !encoding.isBlank() && !encoding.trim().equalsIgnoreCase("identity")) {
            ex.setPersistent(false); // the body is not read
            throw new ApiError(415, "Content-Encoding '" + encoding + "' is not supported; send the JSON body uncompressed");
        }
        bodies.read(ex, (e, body, length) -> handleBody(e, body, length, h));
    }

    private void handleBody(HttpServerExchange e, byte[] body, int length, BodyHandler h) {
        try {
            if (length == 0) {
                throw new ApiError(400, "the request body is empty; expected a JSON object");
            }
            if (JsonWire.notUtf8(body, length)) {
                throw new ApiError(400, "the request body is not UTF-8 JSON (it looks like UTF-16 or UTF-32); send UTF-8");
            }
            String utf8 = JsonWire.utf8Problem(body, length); // else Jackson reads it as other text, or stops at a NUL
            if (utf8 != null) {
                throw new ApiError(400, "the request body is not UTF-8 JSON: " + utf8);
            }
            h.handle(e, body, length);
        } catch (ApiError err) {
            error(e, err.status, err.getMessage());
        } catch (JsonProcessingException err) {
            error(e, 400, Json.describe(err));
        } catch (CharConversionException err) {
            // Jackson guesses UTF-16/32 from the first bytes and fails on a body that is neither (found by
            // HttpApiFuzzTest): a client error, not ours. JSON on the wire is UTF-8 (RFC 8259 §8.1).
            error(e, 400, "the request body is not UTF-8 JSON: " + err.getMessage());
        } catch (IOException | RuntimeException err) {
            log.error("internal error on {} {}", e.getRequestMethod(), e.getRequestPath(), err);
            error(e, 500, "internal error: " + err);
        }
    }

    // ---- route ----

    private void route(HttpServerExchange ex, boolean dryRun, byte[] body, int length, long start) throws IOException {
        RouteRequest request;
        CompletableFuture<RouteDecision> future;
        try {
            request = endpoints.routeRequest(body, length, ex.getRequestHeaders());
        } catch (JsonProcessingException e) {
            countRoute(ex, dryRun, RouteOutcome.INVALID, start);
            throw e;
        } catch (IllegalArgumentException e) { // the body's values: the client's error
            answerRoute(ex, dryRun, null, new ApiError(400, e.getMessage()), start);
            return;
        } catch (RuntimeException e) {
            answerRoute(ex, dryRun, null, e, start);
            return;
        }
        try {
            // ?dry_run=true: where would it go and why, with nothing admitted (operators' what-if).
            future = dryRun ? CompletableFuture.completedFuture(selector.preview(request)) : selector.route(request);
        } catch (RuntimeException e) {
            answerRoute(ex, dryRun, null, e, start);
            return;
        }
        if (future.isDone()) {
            // Also when it failed at once (no worker can take requests): getNow would throw that failure at us.
            future.whenComplete((d, err) -> answerRoute(ex, dryRun, d, err, start));
        } else {
            // If the client goes away while its request waits in the queue, the request leaves the queue (and
            // gives its slot back if it was admitted meanwhile). The answer is written from the connection's
            // I/O thread, where the watch reads: the watch ends before the answer, never during it.
            HangUpWatch watch = HangUpWatch.start(ex, () -> future.cancel(false));
            ex.addExchangeCompleteListener((exchange, next) -> {
                future.cancel(false);
                next.proceed();
            });
            ex.dispatch(SameThreadExecutor.INSTANCE, () -> future.whenComplete((d, err) -> ex.getIoThread().execute(() -> {
                watch.stop();
                if (future.isCancelled() || watch.hungUp()) {
                    if (d != null) {
                        // Admitted as the client hung up (the cancel came too late): give the worker its slot back.
                        selector.onRequestEvent(new RequestEvent(d.requestId(), RequestEvent.Type.FAILED, 0));
                    }
                    countRoute(ex, dryRun, RouteOutcome.ABANDONED, start);
                    ex.endExchange(); // the client is gone: nothing to answer
                } else {
                    answerRoute(ex, dryRun, d, err, start);
                }
            })));
        }
    }

    /** A dry run is counted as one ({@code outcome="dry_run"}) whatever its answer, never as a route. */
    private void countRoute(HttpServerExchange ex, boolean dryRun, RouteOutcome outcome, long start) {
        RouteTally tally = ex.getAttachment(ROUTE_TALLY);
        if (tally != null) {
            if (tally.counted) {
                return;
            }
            tally.counted = true;
        }
        metrics.route(dryRun ? RouteOutcome.DRY_RUN : outcome, System.nanoTime() - start);
    }

    /** A route request's place in {@code tierroute_routes_total}: whether its answer has counted it yet. */
    private static final class RouteTally {
        final boolean dryRun;
        final long start;
        boolean counted;

        RouteTally(boolean dryRun, long start) {
            this.dryRun = dryRun;
            this.start = start;
        }
    }

    private static final AttachmentKey<RouteTally> ROUTE_TALLY = AttachmentKey.create(RouteTally.class);

    private void answerRoute(HttpServerExchange ex, boolean dryRun, RouteDecision d, Throwable err, long start) {
        if (err == null && d == null) {
            err = new IllegalStateException("route completed without a decision");
        }
        if (err instanceof CompletionException && err.getCause() != null) {
            err = err.getCause();
        }
        try {
            if (err == null) {
                countRoute(ex, dryRun, RouteOutcome.ROUTED, start);
                sendJson(ex, 200, RouteJson.write(d));
            } else if (err instanceof NoCapacityException) {
                countRoute(ex, dryRun, RouteOutcome.NO_CAPACITY, start);
                ex.getResponseHeaders().put(Headers.RETRY_AFTER, "1");
                error(ex, 503, err.getMessage());
            } else if (err instanceof ApiError a) {
                countRoute(ex, dryRun, RouteOutcome.INVALID, start);
                error(ex, a.status, a.getMessage());
            } else if (err instanceof PromptTooLargeException) {
                countRoute(ex, dryRun, RouteOutcome.INVALID, start);
                error(ex, 400, err.getMessage());
            } else if (err instanceof DuplicateRequestException) {
                countRoute(ex, dryRun, RouteOutcome.CONFLICT, start);
                error(ex, 409, err.getMessage());
            } else { // any other exception of the selector's is a bug, whatever its type: a 500, logged
                countRoute(ex, dryRun, RouteOutcome.ERROR, start);
                log.error("route failed", err);
                error(ex, 500, "internal error: " + err);
            }
        } catch (RuntimeException e) {
            log.error("could not answer a route", e);
            error(ex, 500, "internal error: " + e);
        }
    }

    // ---- workers and admin ----

    private Map<String, Object> workers() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (WorkerView w : selector.workers()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", w.name());
            m.put("index", w.index());
            m.put("healthy", w.healthy());
            m.put("draining", w.draining());
            m.put("approximate", w.approximate());
            Map<String, Object> load = new LinkedHashMap<>();
            load.put("in_flight", w.load().inFlight());
            load.put("engine_in_flight", w.load().engineInFlight()); // what workers[].maxInFlight also holds it to
            load.put("waiting", w.load().waiting());
            load.put("decode_tokens", w.load().decodeTokens());
            load.put("kv_used_tokens", w.load().kvUsedTokens());
            load.put("kv_capacity_tokens", w.load().kvCapacityTokens());
            load.put("kv_usage", w.load().kvUsage());
            m.put("load", load);
            out.add(m);
        }
        return Map.of("workers", out);
    }

    private void workerAdmin(HttpServerExchange ex, Route action, String name) {
        int worker = selector.registry().find(name)
                .orElseThrow(() -> new ApiError(404, "unknown worker '" + name + "'"));
        switch (action) {
            case WORKER_DRAIN -> {
                selector.setDraining(worker, true);
                audit(ex, "drained worker " + name);
                send(ex, new Endpoints.Reply(200, Map.of("worker", name, "draining", true)));
            }
            case WORKER_UNDRAIN -> {
                selector.setDraining(worker, false);
                audit(ex, "undrained worker " + name);
                send(ex, new Endpoints.Reply(200, Map.of("worker", name, "draining", false)));
            }
            default -> post(ex, exact((e, body) -> {
                Bodies.Health h = Endpoints.object(Endpoints.HEALTH.readValue(body));
                if (h.healthy == null) {
                    throw new ApiError(400, "field 'healthy' is required (true or false)");
                }
                selector.setHealthy(worker, h.healthy);
                audit(e, "marked worker " + name + (h.healthy ? " healthy" : " unhealthy"));
                send(e, new Endpoints.Reply(200, Map.of("worker", name, "healthy", h.healthy)));
            }));
        }
    }

    private void reload(HttpServerExchange ex) {
        if (reloader == null) {
            throw new ApiError(409, kafkaStatus != null
                    ? "nothing to reload from a file: no parametersFile is configured, or the parameters come from Kafka "
                    + "(kafka.params; pin or roll back with a control record instead)"
                    : "no parametersFile is configured; nothing to reload");
        }
        ParameterSet next;
        // One reload at a time: of two overlapping ones, the file read first could otherwise be activated last.
        synchronized (reloadLock) {
            try {
                next = reloader.get();
            } catch (ConfigException e) {
                ParameterSet kept = selector.parameters().current();
                throw new ApiError(400, "parameter file rejected, keeping version " + kept.version() + " ("
                        + kept.source() + "): " + e.getMessage());
            }
            if (!selector.parameters().activate(next)) {
                throw new ApiError(400, "parameter set does not cover the configured workers; keeping the active set");
            }
        }
        audit(ex, "reloaded the parameter file: version " + next.version() + " (" + next.source() + ")");
        send(ex, new Endpoints.Reply(200, params(next)));
    }

    /** An admin call that changed what the selector does, with who asked (the peer's address): the operators' trail. */
    private static void audit(HttpServerExchange ex, String what) {
        log.info("admin: {} (request from {})", what, ex.getSourceAddress());
    }

    private static Map<String, Object> params(ParameterSet ps) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("scope", ps.scope());
        m.put("version", ps.version());
        m.put("source", ps.source());
        m.put("cost", ParameterFile.asMap(ps.cost()));
        m.put("output_quantile", ps.outputQuantile());
        m.put("output_model", ps.outputModel() != null);
        m.put("output_model_version", ps.outputModelVersion() > 0 ? ps.outputModelVersion() : null);
        m.put("rho_aged_out_links", ps.rhoAgedOutLinks()); // ρ counted as 0: older than kafka.params.rhoMaxAge
        return m;
    }

    private void scrape(HttpServerExchange ex) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(16 * 1024);
        try {
            metrics.scrape(out);
        } catch (IOException e) {
            throw new IllegalStateException("metrics scrape failed", e);
        }
        metrics.httpStatus(200);
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, metrics.contentType());
        ex.getResponseSender().send(ByteBuffer.wrap(out.toByteArray()));
    }

    // ---- responses ----

    private void send(HttpServerExchange ex, Endpoints.Reply reply) {
        if (reply.retryAfterSeconds() > 0) {
            ex.getResponseHeaders().put(Headers.RETRY_AFTER, Integer.toString(reply.retryAfterSeconds()));
        }
        byte[] json;
        try {
            json = Json.MAPPER.writeValueAsBytes(reply.body());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise a reply", e);
        }
        sendJson(ex, reply.status(), json);
    }

    private void sendJson(HttpServerExchange ex, int status, byte[] json) {
        metrics.httpStatus(status);
        ex.setStatusCode(status);
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, JSON_TYPE);
        ex.getResponseSender().send(ByteBuffer.wrap(json));
    }

    private void error(HttpServerExchange ex, int status, String message) {
        RouteTally tally = ex.getAttachment(ROUTE_TALLY);
        if (tally != null && !tally.counted) { // a route refused before route() could count it
            countRoute(ex, tally.dryRun, status >= 500 ? RouteOutcome.ERROR : RouteOutcome.INVALID, tally.start);
        }
        if (ex.isResponseStarted()) {
            log.warn("cannot send error {} ({}): the response has started", status, message);
            return;
        }
        byte[] body;
        try {
            body = Json.MAPPER.writeValueAsBytes(Map.of("error", ApiError.bounded(String.valueOf(message))));
        } catch (JsonProcessingException e) {
            body = "{\"error\":\"unprintable error\"}".getBytes(StandardCharsets.UTF_8);
        }
        sendJson(ex, status, body);
    }
}
