package io.tierroute.selector.kafka;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.tierroute.schemas.Topics;
import io.tierroute.selector.sync.ReplicaSync;
import io.tierroute.selector.sync.direct.DirectPath;
import io.tierroute.selector.sync.wire.ReplicaSyncInbound;
import io.tierroute.selector.metrics.SelectorMetrics;
import io.tierroute.selector.scheduling.Selector;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What the Kafka parts of a selector show an operator, from parts someone else started and owns: the
 * {@code kafka} block of {@code GET /v1/params} and their Prometheus metrics ({@code tierroute_params_*},
 * {@code tierroute_kv_consumer_*}, {@code tierroute_decisions_*}, which the Grafana dashboard charts). One
 * place for both, so the standalone selector ({@link KafkaServices}) and an embedded one (the demo's) show
 * the same. Each part may be null (off); a part that is off has no block and no metrics.
 */
public final class KafkaPartsReport {

    private final String bootstrapServers;
    private final String scope;
    private final Selector selector;
    private final ParameterLoader loader;       // null when off
    private final KvEventConsumer kvConsumer;   // null when off
    private final DecisionPublisher decisions;  // null when off
    private final ReplicaSyncLink replicaSync;  // null when off

    /**
     * @param bootstrapServers where the parts read and write
     * @param scope            the parameter scope the selector serves
     * @param selector         the selector the decision publisher is the sink of (its sink errors are counted)
     */
    public KafkaPartsReport(String bootstrapServers, String scope, Selector selector, ParameterLoader loader,
                            KvEventConsumer kvConsumer, DecisionPublisher decisions) {
        this(bootstrapServers, scope, selector, loader, kvConsumer, decisions, null);
    }

    /** As above, with replica sync ({@code tierroute_replica_sync_*}, the {@code replica_sync} block), or null. */
    public KafkaPartsReport(String bootstrapServers, String scope, Selector selector, ParameterLoader loader,
                            KvEventConsumer kvConsumer, DecisionPublisher decisions, ReplicaSyncLink replicaSync) {
        this.replicaSync = replicaSync;
        this.bootstrapServers = bootstrapServers;
        this.scope = scope;
        this.selector = selector;
        this.loader = loader;
        this.kvConsumer = kvConsumer;
        this.decisions = decisions;
    }

    /**
     * Registers the parts' metrics on {@code metrics}' registry and adds the other scopes' active versions to
     * its {@code tierroute_params_active_version}. Once per {@code metrics}: a second call fails (duplicate names).
     */
    public void register(SelectorMetrics metrics) {
        registerMetrics(metrics.registry());
        metrics.otherScopes(this::scopeVersions);
    }

    /** Active version per scope as the rule decides it (all scopes seen), for the params gauge. */
    public Map<String, Long> scopeVersions() {
        Map<String, Long> m = new TreeMap<>();
        if (loader != null) {
            loader.status().scopes().forEach((s, st) -> m.put(s, st.activeVersion() == null ? 0 : st.activeVersion()));
        }
        return m;
    }

    /** A part's thread, by its metric label, and why an Error stopped it for good (null while it runs). */
    private record Part(String label, String name, Supplier<String> stopped) {}

    /** The parts that are on, each with its own thread(s). */
    private List<Part> parts() {
        List<Part> p = new ArrayList<>();
        if (loader != null) {
            p.add(new Part("params_loader", "params loader", loader::stopped));
        }
        if (kvConsumer != null) {
            p.add(new Part("kv_consumer", "kv consumer", kvConsumer::stopped));
        }
        if (decisions != null) {
            p.add(new Part("decisions_publisher", "decisions publisher", decisions::stopped));
        }
        if (replicaSync != null) {
            p.add(new Part("replica_sync_consumer", "replica sync consumer", replicaSync.consumer()::stopped));
            p.add(new Part("replica_sync_publisher", "replica sync publisher", replicaSync.publisher()::stopped));
            DirectPath d = replicaSync.direct();
            if (d != null) {
                p.add(new Part("replica_direct_in", "replica direct receiver", d::receiverStopped));
                p.add(new Part("replica_direct_out", "replica direct sender", d::senderStopped));
            }
        }
        return p;
    }

    /**
     * The parts an Error stopped for good, each with why ({@code kv consumer: java.lang.OutOfMemoryError: …, applying
     * the batch at …}), or null while all run: {@code /healthz} answers 503 with it, since the process would go on
     * serving on frozen parameters, a stale index or without publishing, until restarted.
     */
    public String stopped() {
        List<String> why = new ArrayList<>();
        for (Part p : parts()) {
            String w = p.stopped().get();
            if (w != null) {
                why.add(p.name() + ": " + w);
            }
        }
        return why.isEmpty() ? null : String.join("; ", why);
    }

    /** The status block of {@code GET /v1/params}. */
    public Map<String, Object> status() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("bootstrap_servers", bootstrapServers);
        m.put("scope", scope);
        Map<String, String> stopped = new LinkedHashMap<>();
        for (Part p : parts()) {
            String w = p.stopped().get();
            if (w != null) {
                stopped.put(p.label(), w);
            }
        }
        if (!stopped.isEmpty()) {
            m.put("stopped", stopped); // parts an Error stopped for good: restart the selector
        }
        if (loader != null) {
            ParameterLoader.Status st = loader.status();
            Map<String, Object> l = new LinkedHashMap<>();
            l.put("ready", st.ready());
            l.put("applied_version", st.appliedVersion());
            l.put("startup_ms", st.startupMillis());
            l.put("swaps", loader.swaps());
            l.put("forests_refused", loader.forestsRefused());
            l.put("restarts", loader.restarts());
            // the history read was found gone (topics recreated or truncated, another cluster) and read again from the start
            l.put("history_resets", st.historyResets());
            l.put("last_history_reset", st.lastHistoryReset());
            l.put("bad_records", loader.badRecords());
            l.put("last_error", st.lastError());
            // ready means caught up once; these say whether the loader hears from Kafka now (ParameterLoader: outages)
            l.put("kafka_connected", loader.kafkaConnected());
            l.put("kafka_unreachable_since", st.kafkaUnreachableSinceMs() == null ? null
                    : BrokerContact.isoTime(st.kafkaUnreachableSinceMs()));
            Map<String, Object> scopes = new LinkedHashMap<>();
            st.scopes().forEach((s, ss) -> {
                Map<String, Object> x = new LinkedHashMap<>();
                x.put("active_version", ss.activeVersion());
                x.put("pinned", ss.pinned());
                x.put("pinned_version", ss.pinnedVersion());
                x.put("control_sequence", ss.controlSequence());
                if (ss.acceptedVersions() >= 0) { // the served scope
                    x.put("newest_rejected_version", ss.newestRejected());
                }
                scopes.put(s, x);
            });
            l.put("scopes", scopes);
            m.put("params", l);
        }
        if (kvConsumer != null) {
            long resyncs = 0;
            for (KvEventConsumer.ResyncReason reason : KvEventConsumer.ResyncReason.values()) {
                resyncs += kvConsumer.resyncs(reason);
            }
            m.put("kv_events", Map.of("batches", kvConsumer.batches(), "events", kvConsumer.events(),
                    "bad_records", kvConsumer.badRecords(), "sequence_gaps", kvConsumer.sequenceGaps(),
                    "duplicate_batches", kvConsumer.duplicateBatches(),
                    "resyncs", resyncs, "restarts", kvConsumer.restarts(), "log_resets", kvConsumer.logResets(),
                    "partitions_added", kvConsumer.partitionsAdded()));
        }
        if (decisions != null) {
            m.put("decisions", Map.of("sent", decisions.sent(), "acknowledged", decisions.acknowledged(),
                    "dropped_buffer_full", decisions.droppedBufferFull(), "send_failed", decisions.sendFailed(),
                    "dropped_closed", decisions.droppedClosed(), "sink_errors", selector.decisionSinkErrors(),
                    "backlog", decisions.backlog(), "producer", decisions.hasProducer()
                            ? "built" : "not built: the bootstrap host does not resolve (retrying)"));
        }
        if (replicaSync != null) {
            m.put("replica_sync", replicaSyncStatus(replicaSync));
        }
        return m;
    }

    /** Registers the parts' metrics on {@code r}. */
    public void registerMetrics(PrometheusRegistry r) {
        List<Part> parts = parts();
        if (!parts.isEmpty()) {
            GaugeWithCallback.builder().name("tierroute_kafka_part_stopped")
                    .help("1 once an Error (out of memory, a class that failed to load) has stopped the part's thread "
                            + "for good (logged; /healthz answers 503 until the selector restarts)")
                    .labelNames("part").callback(cb -> {
                        for (Part p : parts) {
                            cb.call(p.stopped().get() == null ? 0 : 1, p.label());
                        }
                    }).register(r);
        }
        if (loader != null) {
            ParameterLoader l = loader;
            CounterWithCallback.builder().name("tierroute_params_bad_records_total")
                    .help("Records of the params / control topics the loader could not use (the last good parameter "
                            + "set stays active), by topic and reason")
                    .labelNames("topic", "reason").callback(cb -> {
                        for (String topic : new String[] {Topics.PARAMS, Topics.CONTROL}) {
                            for (ParameterLoader.BadReason reason : ParameterLoader.BadReason.values()) {
                                cb.call(l.badRecords(topic, reason), topic, reason.name().toLowerCase());
                            }
                        }
                    }).register(r);
            CounterWithCallback.builder().name("tierroute_params_records_read_total")
                    .help("Records read from the params and control topics").labelNames("topic").callback(cb -> {
                        cb.call(l.paramsRecordsRead(), Topics.PARAMS);
                        cb.call(l.controlRecordsRead(), Topics.CONTROL);
                    }).register(r);
            counter(r, "tierroute_params_swaps_total", "Parameter sets the loader swapped in", l::swaps);
            counter(r, "tierroute_params_forests_refused_total", "Versions swapped in with the output model in use "
                    + "because the evaluator refused their own quantile forest", l::forestsRefused);
            counter(r, "tierroute_params_rereads_total", "Snapshots re-read by offset (activated but no longer cached)",
                    l::rereads);
            counter(r, "tierroute_params_unknown_workers_total",
                    "rho entries of snapshots for workers this selector does not have (ignored)", l::unknownWorkers);
            counter(r, "tierroute_params_reread_failures_total",
                    "Re-reads of the active version that failed for a transient reason (retried with back-off)",
                    l::rereadFailures);
            counter(r, "tierroute_params_scans_total",
                    "Versions older than the loader's offset index found by scanning the params topic", l::scans);
            counter(r, "tierroute_params_loader_restarts_total",
                    "Loader sessions restarted after a consumer error (the applied set stays meanwhile)", l::restarts);
            counter(r, "tierroute_params_history_resets_total",
                    "Times the params / control history the loader read was found gone (topics recreated or truncated, "
                            + "another cluster at the address) and both topics were re-read from the beginning",
                    l::historyResets);
            counter(r, "tierroute_params_partitions_added_total", "Partitions added to the params or control topic "
                    + "while the loader followed them (each read from its beginning since)", l::partitionsAdded);
            counter(r, "tierroute_params_stale_control_records_total",
                    "Control records ignored because their sequence was not above the scope's last one",
                    l::staleControlRecords);
            GaugeWithCallback.builder().name("tierroute_params_ready")
                    .help("1 once the loader has caught up with the params and control topics")
                    .callback(cb -> cb.call(l.isReady() ? 1 : 0)).register(r);
            GaugeWithCallback.builder().name("tierroute_params_kafka_connected")
                    .help("1 while the loader is in contact with the Kafka cluster, 0 after "
                            + BrokerContact.DEFAULT_THRESHOLD.toSeconds() + " s without (or twice the consumer's "
                            + "fetch.max.wait.ms if longer; the parameters are then frozen at the applied version)")
                    .callback(cb -> cb.call(l.kafkaConnected() ? 1 : 0)).register(r);
            GaugeWithCallback.builder().name("tierroute_params_kafka_unreachable_seconds")
                    .help("Time since the loader's last contact with the Kafka cluster while it has none, else 0")
                    .callback(cb -> cb.call(l.kafkaUnreachableMillis() / 1e3)).register(r);
            GaugeWithCallback.builder().name("tierroute_params_last_swap_seconds")
                    .help("Decode + convert + swap time of the last parameter swap")
                    .callback(cb -> cb.call(l.lastSwapNanos() < 0 ? 0 : l.lastSwapNanos() / 1e9)).register(r);
            GaugeWithCallback.builder().name("tierroute_params_startup_seconds")
                    .help("Time the loader took to catch up with the topics at start")
                    .callback(cb -> cb.call(l.status().startupMillis() < 0 ? 0 : l.status().startupMillis() / 1e3))
                    .register(r);
            GaugeWithCallback.builder().name("tierroute_params_pinned")
                    .help("1 when the scope is pinned by a control record").labelNames("scope")
                    .callback(cb -> l.status().scopes().forEach((s, st) -> cb.call(st.pinned() ? 1 : 0, s)))
                    .register(r);
            // The served scope alone: tierroute_params_pinned has every scope on the topics, and another deployment's
            // pin must not silence this selector's alerts.
            GaugeWithCallback.builder().name("tierroute_params_served_scope_pinned")
                    .help("1 when the scope this selector serves is pinned by a control record")
                    .callback(cb -> {
                        var st = l.status().scopes().get(l.scope());
                        cb.call(st != null && st.pinned() ? 1 : 0);
                    })
                    .register(r);
            GaugeWithCallback.builder().name("tierroute_params_rule_version")
                    .help("Version the activation rule makes active per scope (tierroute_params_active_version is "
                            + "what this selector applies; they differ when that version was unusable)")
                    .labelNames("scope")
                    .callback(cb -> l.status().scopes().forEach((s, st) ->
                            cb.call(st.activeVersion() == null ? 0 : st.activeVersion(), s)))
                    .register(r);
        }
        if (kvConsumer != null) {
            KvEventConsumer k = kvConsumer;
            counter(r, "tierroute_kv_consumer_batches_total", "KV event batches read from " + Topics.KV_EVENTS, k::batches);
            counter(r, "tierroute_kv_consumer_events_total", "KV events from Kafka handed to the index writer", k::events);
            counter(r, "tierroute_kv_consumer_sequence_gaps_total",
                    "Jumps in a worker's KV batch sequence other than a restart (each also resyncs the worker)",
                    k::sequenceGaps);
            counter(r, "tierroute_kv_consumer_duplicate_batches_total", "KV batches skipped as an exact repeat of the "
                    + "worker's last one (same sequence and bytes: a producer's retry); nothing is cleared",
                    k::duplicateBatches);
            counter(r, "tierroute_kv_consumer_backpressure_waits_total",
                    "Times the KV consumer waited because the index writer was full", k::backpressureWaits);
            counter(r, "tierroute_kv_consumer_restarts_total",
                    "KV consumer sessions restarted after a consumer error (resumed at the same positions)", k::restarts);
            counter(r, "tierroute_kv_consumer_log_resets_total", "Times the KV consumer's position was no longer in "
                    + Topics.KV_EVENTS + " (recreated or truncated, a new cluster) and it read it again from the beginning",
                    k::logResets);
            counter(r, "tierroute_kv_consumer_partitions_added_total", "Partitions added to " + Topics.KV_EVENTS
                    + " while the KV consumer read it (each read from its beginning since)", k::partitionsAdded);
            CounterWithCallback.builder().name("tierroute_kv_consumer_bad_records_total")
                    .help("KV event batches skipped, by reason").labelNames("reason").callback(cb -> {
                        for (KvEventConsumer.BadReason reason : KvEventConsumer.BadReason.values()) {
                            cb.call(k.badRecords(reason), reason.name().toLowerCase());
                        }
                    }).register(r);
            CounterWithCallback.builder().name("tierroute_kv_consumer_resyncs_total")
                    .help("Times a worker's index entries were cleared because its state was unknown (gap, "
                            + "out_of_order, restart, skipped_batch); its following events rebuild them")
                    .labelNames("reason").callback(cb -> {
                        for (KvEventConsumer.ResyncReason reason : KvEventConsumer.ResyncReason.values()) {
                            cb.call(k.resyncs(reason), reason.name().toLowerCase());
                        }
                    }).register(r);
        }
        if (decisions != null) {
            DecisionPublisher d = decisions;
            counter(r, "tierroute_decisions_sent_total", "Routing decisions handed to the Kafka producer", d::sent);
            counter(r, "tierroute_decisions_acknowledged_total", "Routing decisions the broker acknowledged",
                    d::acknowledged);
            CounterWithCallback.builder().name("tierroute_decisions_dropped_total")
                    .help("Routing decisions not published: buffer_full (the route never waits), send_failed, "
                            + "encode_failed, closed (buffered or offered while shutting down, or after an Error stopped the "
                            + "sending thread), sink_error (the sink "
                            + "threw on the route thread)").labelNames("reason").callback(cb -> {
                        cb.call(d.droppedBufferFull(), "buffer_full");
                        cb.call(d.sendFailed(), "send_failed");
                        cb.call(d.encodeFailed(), "encode_failed");
                        cb.call(d.droppedClosed(), "closed");
                        cb.call(selector.decisionSinkErrors(), "sink_error");
                    }).register(r);
            GaugeWithCallback.builder().name("tierroute_decisions_backlog")
                    .help("Routing decisions waiting in the hand-off buffer").callback(cb -> cb.call(d.backlog()))
                    .register(r);
        }
        if (replicaSync != null) {
            registerReplicaSync(r, replicaSync, selector);
        }
    }

    private Map<String, Object> replicaSyncStatus(ReplicaSyncLink link) {
        var sync = link.sync();
        var in = link.consumer();
        var out = link.publisher();
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("replica_id", link.replicaId());
        x.put("admissions_sent", sync.admissionsSent());
        x.put("events_sent", sync.eventsSent());
        x.put("acknowledged", out.acknowledged());
        x.put("dropped", out.droppedBufferFull() + out.sendFailed() + out.encodeFailed() + out.droppedClosed());
        x.put("admissions_applied", sync.admissionsApplied());
        x.put("events_applied", sync.eventsApplied());
        x.put("events_pending", sync.pendingEvents());
        x.put("events_unmatched", sync.unmatchedEvents());
        x.put("events_late", sync.lateEvents());
        x.put("events_late_reused", sync.lateEventsReused());
        x.put("admissions_expired", sync.admissionsExpired());
        x.put("other_scope_records", in.otherScopeRecords());
        x.put("bad_records", java.util.Arrays.stream(ReplicaSyncConsumer.BadReason.values())
                .mapToLong(in::badRecords).sum());
        x.put("last_delay_ms", in.lastDelayMillis());
        x.put("outbox_errors", selector.replicaOutboxErrors());
        x.put("duplicates", sync.duplicateMessages());
        DirectPath d = link.direct();
        if (d != null) {
            Map<String, Object> y = new LinkedHashMap<>();
            y.put("listening", d.listening().toString());
            y.put("datagrams_sent", d.datagramsSent());
            y.put("not_sent", d.droppedBufferFull() + d.tooLarge() + d.sendFailed() + d.encodeFailed()
                    + d.droppedClosed());
            y.put("datagrams_received", d.datagramsReceived());
            y.put("handed_over", d.received(ReplicaSyncInbound.Outcome.HANDED_OVER));
            y.put("refused", d.refusedMalformed() + d.refusedUnsigned() + d.badMessages());
            y.put("last_delay_ms", d.lastDelayMillis());
            x.put("direct", y);
        }
        return x;
    }

    private static void registerReplicaSync(PrometheusRegistry r, ReplicaSyncLink link, Selector selector) {
        var sync = link.sync();
        var in = link.consumer();
        var out = link.publisher();
        counter(r, "tierroute_replica_sync_admissions_sent_total", "Admissions of this replica told to the others",
                sync::admissionsSent);
        counter(r, "tierroute_replica_sync_events_sent_total",
                "Request events reported to this replica told to the others", sync::eventsSent);
        counter(r, "tierroute_replica_sync_acknowledged_total", "Replica sync messages the broker acknowledged",
                out::acknowledged);
        CounterWithCallback.builder().name("tierroute_replica_sync_dropped_total")
                .help("Replica sync messages not published: buffer_full (a route never waits), send_failed, "
                        + "encode_failed, closed, outbox_error (the outbox threw on a route or request thread)")
                .labelNames("reason").callback(cb -> {
                    cb.call(out.droppedBufferFull(), "buffer_full");
                    cb.call(out.sendFailed(), "send_failed");
                    cb.call(out.encodeFailed(), "encode_failed");
                    cb.call(out.droppedClosed(), "closed");
                    cb.call(selector.replicaOutboxErrors(), "outbox_error");
                }).register(r);
        counter(r, "tierroute_replica_sync_admissions_applied_total",
                "Other replicas' admissions taken into this replica's load", sync::admissionsApplied);
        counter(r, "tierroute_replica_sync_admissions_repeated_total",
                "Other replicas' admissions of a request already in flight here (ignored)", sync::admissionsRepeated);
        counter(r, "tierroute_replica_sync_events_applied_total",
                "Request events from other replicas (or reported here) applied to this replica's load",
                sync::eventsApplied);
        counter(r, "tierroute_replica_sync_events_parked_total",
                "Request events that waited for their request's admission to be heard", sync::eventsParked);
        counter(r, "tierroute_replica_sync_events_unmatched_total", "Request events whose admission no replica sent "
                + "within kafka.replicaSync.pendingMaxAge (a request no replica routed, or lost messages)",
                sync::unmatchedEvents);
        counter(r, "tierroute_replica_sync_events_dropped_total",
                "Request events dropped because too many waited for their admissions", sync::droppedEvents);
        counter(r, "tierroute_replica_sync_events_late_total", "Request events of a request that had ended here "
                + "(another replica's progress carried after the finish): not applied, unless a new admission of the "
                + "id takes them (..._late_reused_total)", sync::lateEvents);
        counter(r, "tierroute_replica_sync_events_late_reused_total", "Late events a new admission of their id took "
                + "after all (a retry keeping its id whose events were heard before its admission)",
                sync::lateEventsReused);
        counter(r, "tierroute_replica_sync_admissions_expired_total", "Other replicas' admissions older than "
                + "routing.requestMaxAge when heard (read back by a long lookback): not taken", sync::admissionsExpired);
        counter(r, "tierroute_replica_sync_other_scope_records_total",
                "Records of another scope's replicas (another deployment) on the topic, skipped", in::otherScopeRecords);
        counter(r, "tierroute_replica_sync_own_records_total", "This replica's own records read back (skipped)",
                in::ownRecords);
        counter(r, "tierroute_replica_sync_consumer_restarts_total",
                "Replica sync consumer sessions restarted after a consumer error", in::restarts);
        counter(r, "tierroute_replica_sync_log_resets_total", "Times the replica sync consumer's position was no "
                + "longer in " + Topics.REPLICA_SYNC + " (it read on from the end)", in::logResets);
        CounterWithCallback.builder().name("tierroute_replica_sync_bad_records_total")
                .help("Replica sync records skipped, by reason").labelNames("reason").callback(cb -> {
                    for (ReplicaSyncConsumer.BadReason reason : ReplicaSyncConsumer.BadReason.values()) {
                        cb.call(in.badRecords(reason), reason.name().toLowerCase());
                    }
                }).register(r);
        GaugeWithCallback.builder().name("tierroute_replica_sync_pending_events")
                .help("Request events waiting for their request's admission").callback(cb -> cb.call(sync.pendingEvents()))
                .register(r);
        GaugeWithCallback.builder().name("tierroute_replica_sync_delay_seconds")
                .help("How late the last record from another replica arrived (sender's clock to this one's)")
                .callback(cb -> cb.call(Math.max(0, in.lastDelayMillis()) / 1e3)).register(r);
        GaugeWithCallback.builder().name("tierroute_replica_sync_backlog")
                .help("Replica sync messages waiting in the hand-off buffer").callback(cb -> cb.call(out.backlog()))
                .register(r);
        counter(r, "tierroute_replica_sync_duplicates_total", "Second copies of other replicas' messages (heard by the "
                + "direct path and Kafka): dropped", sync::duplicateMessages);
        counter(r, "tierroute_replica_sync_too_old_to_tell_total", "Numbered messages "
                + ReplicaSync.WINDOW_MESSAGES + " or more of their sender's numbers old: Kafka's taken (a copy may "
                + "have come before), a datagram dropped", sync::tooOldToTell);
        counter(r, "tierroute_replica_sync_senders_forgotten_total", "Senders whose message numbers were forgotten to "
                + "make room for another's (more replicas heard lately than remembered): their later copies are taken "
                + "as first", sync::forgottenSenders);
        if (link.direct() != null) {
            registerDirect(r, link.direct());
        }
    }

    private static void registerDirect(PrometheusRegistry r, DirectPath d) {
        counter(r, "tierroute_replica_direct_datagrams_sent_total",
                "Direct-path datagrams sent to the other replicas (one per peer address per message)", d::datagramsSent);
        CounterWithCallback.builder().name("tierroute_replica_direct_not_sent_total")
                .help("Messages the direct path did not send (Kafka still carried them): buffer_full, too_large, "
                        + "send_failed (per peer, an unresolved one included), encode_failed, closed (left at close, "
                        + "offered after it, or its thread stopped by an Error)")
                .labelNames("reason").callback(cb -> {
                    cb.call(d.droppedBufferFull(), "buffer_full");
                    cb.call(d.tooLarge(), "too_large");
                    cb.call(d.sendFailed(), "send_failed");
                    cb.call(d.encodeFailed(), "encode_failed");
                    cb.call(d.droppedClosed(), "closed");
                }).register(r);
        counter(r, "tierroute_replica_direct_datagrams_received_total", "Direct-path datagrams received, refused ones "
                + "included", d::datagramsReceived);
        CounterWithCallback.builder().name("tierroute_replica_direct_received_total")
                .help("Direct-path messages received, by what became of them: handed_over, own, other_scope, "
                        + "duplicate (Kafka brought it first), stale (older than maxAge), malformed and unsigned (refused "
                        + "unread), corrupt, unknown_schema, unknown_worker, invalid")
                .labelNames("outcome").callback(cb -> {
                    for (ReplicaSyncInbound.Outcome o : ReplicaSyncInbound.Outcome.values()) {
                        cb.call(d.received(o), o.name().toLowerCase());
                    }
                    cb.call(d.refusedMalformed(), "malformed");
                    cb.call(d.refusedUnsigned(), "unsigned");
                }).register(r);
        GaugeWithCallback.builder().name("tierroute_replica_direct_backlog")
                .help("Messages waiting for the direct path's sending thread").callback(cb -> cb.call(d.backlog()))
                .register(r);
        GaugeWithCallback.builder().name("tierroute_replica_direct_delay_seconds")
                .help("How late the last direct-path message from another replica arrived (sender's clock to this one's)")
                .callback(cb -> cb.call(Math.max(0, d.lastDelayMillis()) / 1e3)).register(r);
    }

    private static void counter(PrometheusRegistry r, String name, String help, LongSupplier v) {
        CounterWithCallback.builder().name(name).help(help).callback(cb -> cb.call(v.getAsLong())).register(r);
    }
}
