package io.tierroute.selector.config;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The {@code kafka:} section of the selector configuration: where the broker is, which parameter
 * scope this selector serves, and which of the three Kafka parts run (package
 * {@code io.tierroute.selector.kafka}). Absent section: no Kafka at all.
 *
 * @param bootstrapServers {@code host:port[,host:port…]}
 * @param scope            the parameter scope whose active snapshot this selector applies
 * @param clientId         {@code client.id} prefix of the three clients (suffixes {@code -params},
 *                         {@code -kv}, {@code -decisions})
 * @param selectorId       this replica's id in {@code RoutingDecision.selectorId}
 * @param properties       extra client settings passed verbatim to every client (TLS, SASL, …)
 * @param params           the parameter loader
 * @param kvEvents         the KV events consumer
 * @param decisions        the decisions producer
 * @param replicaSync      replica sync with the other selector replicas (off by default)
 */
public record KafkaSettings(String bootstrapServers, String scope, String clientId, String selectorId,
                            Map<String, String> properties, Params params, KvEvents kvEvents, Decisions decisions,
                            ReplicaSync replicaSync) {

    public KafkaSettings {
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(selectorId, "selectorId");
        properties = Map.copyOf(properties);
        Objects.requireNonNull(params, "params");
        Objects.requireNonNull(kvEvents, "kvEvents");
        Objects.requireNonNull(decisions, "decisions");
        Objects.requireNonNull(replicaSync, "replicaSync");
    }

    /**
     * Client settings the Kafka parts set themselves, besides {@code bootstrap.servers} and {@code client.id}: a value
     * among the extra {@code properties} would break them silently ({@link #RESERVED_WHY}).
     */
    public static final Set<String> RESERVED_PROPERTIES = Set.of("group.id", "group.instance.id",
            "enable.auto.commit", "isolation.level", "auto.offset.reset", "transactional.id", "key.serializer",
            "value.serializer", "key.deserializer", "value.deserializer");

    /** Why {@link #RESERVED_PROPERTIES} are not the user's to set. */
    public static final String RESERVED_WHY = "the consumers read every partition with no group, read_committed, from "
            + "positions they choose; the producers are not transactional; records are bytes";

    /** Defaults for a broker at {@code bootstrapServers}: every part on but replica sync, scope {@code default}. */
    public static KafkaSettings defaults(String bootstrapServers) {
        return new KafkaSettings(bootstrapServers, "default", "tierroute-selector", "tierroute-selector", Map.of(),
                Params.DEFAULTS, KvEvents.DEFAULTS, Decisions.DEFAULTS, ReplicaSync.DEFAULTS);
    }

    public KafkaSettings withParams(Params p) {
        return new KafkaSettings(bootstrapServers, scope, clientId, selectorId,
                properties, p, kvEvents, decisions, replicaSync);
    }

    public KafkaSettings withKvEvents(KvEvents k) {
        return new KafkaSettings(bootstrapServers, scope, clientId, selectorId,
                properties, params, k, decisions, replicaSync);
    }

    public KafkaSettings withDecisions(Decisions d) {
        return new KafkaSettings(bootstrapServers, scope, clientId, selectorId,
                properties, params, kvEvents, d, replicaSync);
    }

    public KafkaSettings withScope(String s) {
        return new KafkaSettings(bootstrapServers, s, clientId, selectorId,
                properties, params, kvEvents, decisions, replicaSync);
    }

    /** The extra properties by key only: their values may be passwords ({@code sasl.jaas.config}, {@code ssl.*}). */
    @Override
    public String toString() {
        return "KafkaSettings[bootstrapServers=" + bootstrapServers + ", scope=" + scope + ", clientId=" + clientId
                + ", selectorId=" + selectorId + ", properties=" + new java.util.TreeSet<>(properties.keySet())
                + " (values not shown), params=" + params + ", kvEvents=" + kvEvents + ", decisions=" + decisions
                + ", replicaSync=" + replicaSync + "]";
    }

    /** With {@code p} as the extra client settings of every client (TLS, SASL, …). */
    public KafkaSettings withProperties(Map<String, String> p) {
        return new KafkaSettings(bootstrapServers, scope, clientId, selectorId,
                p, params, kvEvents, decisions, replicaSync);
    }

    /**
     * The parameter loader (tierroute.params + tierroute.control).
     *
     * @param enabled           whether it runs
     * @param retainedSnapshots decoded-record cache: the encoded records of this many most recent accepted
     *                          versions of the served scope are kept; an older one (a rollback) is re-read by offset
     * @param startupTimeout    how long the server start waits for the loader to catch up with the topics
     * @param requireOnStart    true: the start fails when the loader has not caught up in time; false: the
     *                          server serves the configured parameters meanwhile and swaps once caught up
     * @param rhoMaxAge         a served ρ_t(w) whose fitting window ended longer ago than this counts as 0 until a
     *                          snapshot brings a newer one ({@code RhoAging}); {@link Duration#ZERO}: never. The default,
     *                          60 s, is the fitting job's own limit: a link silent that long restarts its EWMA.
     */
    public record Params(boolean enabled, int retainedSnapshots, Duration startupTimeout, boolean requireOnStart,
                         Duration rhoMaxAge) {
        public static final Params DEFAULTS = new Params(true, 8, Duration.ofSeconds(30), false, Duration.ofSeconds(60));

        public Params {
            if (rhoMaxAge.isNegative()) {
                throw new IllegalArgumentException("rhoMaxAge must be >= 0, got " + rhoMaxAge);
            }
        }
    }

    /**
     * The KV events consumer (tierroute.kv-events).
     *
     * @param enabled   whether it runs
     * @param startFrom {@code latest} (only events after start) or {@code earliest} (replay what the topic retains)
     */
    public record KvEvents(boolean enabled, String startFrom) {
        public static final KvEvents DEFAULTS = new KvEvents(true, "latest");
    }

    /**
     * The decisions producer (tierroute.decisions).
     *
     * @param enabled     whether it runs
     * @param bufferSize  decisions the hand-off buffer holds; a route never waits: past it, decisions are dropped and counted
     * @param linger      producer {@code linger.ms}
     * @param batchBytes  producer {@code batch.size}
     * @param compression producer {@code compression.type}: none, gzip, snappy, lz4, zstd
     */
    public record Decisions(boolean enabled, int bufferSize, Duration linger, int batchBytes, String compression) {
        public static final Decisions DEFAULTS = new Decisions(true, 65_536, Duration.ofMillis(20), 256 * 1024, "lz4");
    }

    /**
     * Replica sync (tierroute.replica-sync): this replica tells the others each request it admits and each request
     * event reported to it, and takes theirs into the load it prices ({@code io.tierroute.selector.sync.ReplicaSync}).
     * For a deployment of several replicas behind one load balancer; with it, {@code routing.ownKvAccounting} is right
     * again (every replica counts every request).
     *
     * @param enabled       whether it runs
     * @param lookback      at start, the topic is read from this long ago, so requests in flight then are counted;
     *                      {@link Duration#ZERO}: from the end
     * @param pendingMaxAge how long an event waits for its request's admission to be heard
     * @param bufferSize    messages the producer's hand-off buffer holds; past it they are dropped and counted
     * @param direct        the direct datagram path beside Kafka ({@link Direct#OFF} by default)
     */
    public record ReplicaSync(boolean enabled, Duration lookback, Duration pendingMaxAge, int bufferSize,
                              Direct direct) {
        public static final ReplicaSync DEFAULTS = new ReplicaSync(false, Duration.ofMinutes(2), Duration.ofSeconds(30),
                65_536, Direct.OFF);

        public ReplicaSync {
            if (lookback.isNegative() || pendingMaxAge.isNegative() || pendingMaxAge.isZero() || bufferSize < 1) {
                throw new IllegalArgumentException("replicaSync: lookback must be >= 0, pendingMaxAge > 0 and "
                        + "bufferSize >= 1, got " + lookback + ", " + pendingMaxAge + " and " + bufferSize);
            }
            Objects.requireNonNull(direct, "direct");
        }

        /** Without the direct path. */
        public ReplicaSync(boolean enabled, Duration lookback, Duration pendingMaxAge, int bufferSize) {
            this(enabled, lookback, pendingMaxAge, bufferSize, Direct.OFF);
        }
    }

    /**
     * Replica sync's direct path ({@code io.tierroute.selector.sync.direct}): each message also goes straight to every
     * peer as one authenticated UDP datagram, so the others hear an admission in a millisecond or two (loopback)
     * instead of Kafka's several. Kafka still carries every message (a lost datagram costs only its delay) and is what a
     * starting replica reads back; a receiver drops whichever copy comes second.
     *
     * @param listen     where this replica receives ({@code host:port}, {@code 0.0.0.0:port} for every interface;
     *                   port 0 takes any free one, which no peer can know: for tests and code only, a configuration
     *                   file's is refused); null: the direct path is off
     * @param peers      where the replicas receive ({@code host:port} each, port 1-65535, at most {@link #MAX_PEERS},
     *                   none twice); a name that resolves to several addresses (a Kubernetes headless Service) sends
     *                   to each, resolved again every ten seconds; may include this replica (its own messages are
     *                   skipped), so every replica can share one list
     * @param keyEnv     the environment variable holding the shared key (at least 32 characters) every datagram is
     *                   signed with (HMAC-SHA256); one without it is dropped and counted
     * @param maxAge     a datagram sent longer ago than this (or as far ahead), by the receiver's clock, is dropped
     *                   (a replay; or clocks that far apart, where only Kafka carries the messages)
     * @param bufferSize messages the sending thread's hand-off buffer holds; past it they go by Kafka only (counted)
     */
    public record Direct(HostPort listen, java.util.List<HostPort> peers, String keyEnv, Duration maxAge,
                         int bufferSize) {
        public static final String DEFAULT_KEY_ENV = "TIERROUTE_REPLICA_KEY";
        public static final Direct OFF = new Direct(null, java.util.List.of(), DEFAULT_KEY_ENV, Duration.ofSeconds(5),
                65_536);
        /** Replicas one direct path sends each message to (one datagram each, on one thread). */
        public static final int MAX_PEERS = 64;

        public Direct {
            peers = java.util.List.copyOf(peers);
            Objects.requireNonNull(keyEnv, "keyEnv");
            if (maxAge.isNegative() || maxAge.isZero() || bufferSize < 1) {
                throw new IllegalArgumentException("replicaSync.direct: maxAge must be > 0 and bufferSize >= 1, got "
                        + maxAge + " and " + bufferSize);
            }
            if (listen == null && !peers.isEmpty()) {
                throw new IllegalArgumentException("replicaSync.direct: peers without listen (a replica that sends "
                        + "datagrams must also receive them)");
            }
            if (peers.size() > MAX_PEERS) {
                throw new IllegalArgumentException("replicaSync.direct: " + peers.size() + " peers; at most "
                        + MAX_PEERS);
            }
            for (int i = 0; i < peers.size(); i++) {
                HostPort p = peers.get(i);
                if (p.port() < 1) { // each message would count a send_failed for it
                    throw new IllegalArgumentException("replicaSync.direct: peer " + p + " has port 0; a peer's is "
                            + "1-65535");
                }
                int first = indexOfSame(peers.subList(0, i), p);
                if (first >= 0) {
                    throw new IllegalArgumentException("replicaSync.direct: peer " + p + " is listed twice (also peers["
                            + first + "])");
                }
            }
        }

        /** Where {@code peers} has {@code p} (host names compared ignoring case, as DNS does), or -1. */
        public static int indexOfSame(java.util.List<HostPort> peers, HostPort p) {
            for (int i = 0; i < peers.size(); i++) {
                HostPort q = peers.get(i);
                if (q.port() == p.port() && q.host().equalsIgnoreCase(p.host())) {
                    return i;
                }
            }
            return -1;
        }

        public boolean enabled() {
            return listen != null;
        }
    }

    /**
     * A host (name or address) and a port, as {@code host:port} (an IPv6 address in brackets); port 0 (any free one)
     * only where something listens.
     */
    public record HostPort(String host, int port) {
        public HostPort {
            if (host == null || host.isEmpty() || port < 0 || port > 65_535) {
                throw new IllegalArgumentException("expected host:port with a port 0-65535, got " + host + ":" + port);
            }
        }

        /** Parses {@code host:port} or {@code [v6]:port} (port 1-65535); {@link IllegalArgumentException} says what is wrong. */
        public static HostPort parse(String text) {
            return parse(text, 1);
        }

        /** As {@link #parse(String)}, with ports from {@code minPort} (0 where a listener may take any free one). */
        public static HostPort parse(String text, int minPort) {
            String t = text.strip();
            String host;
            String port;
            if (t.startsWith("[")) { // [v6]:port
                int close = t.indexOf(']');
                if (close < 0 || close + 1 >= t.length() || t.charAt(close + 1) != ':') {
                    throw new IllegalArgumentException("expected [IPv6 address]:port, got '" + text + "'");
                }
                host = t.substring(1, close);
                if (!host.contains(":")) {
                    throw new IllegalArgumentException("only an IPv6 address goes in brackets, got '" + text + "'");
                }
                port = t.substring(close + 2);
            } else {
                int colon = t.lastIndexOf(':');
                if (colon <= 0) {
                    throw new IllegalArgumentException("expected host:port, got '" + text + "'");
                }
                host = t.substring(0, colon);
                if (host.contains(":")) {
                    throw new IllegalArgumentException("an IPv6 address goes in brackets ([::1]:7411), got '" + text
                            + "'");
                }
                port = t.substring(colon + 1);
            }
            int p;
            try {
                p = Integer.parseInt(port);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("the port of '" + text + "' is not a number");
            }
            if (p < minPort || p > 65_535) {
                throw new IllegalArgumentException("the port of '" + text + "' must be " + minPort + "-65535");
            }
            return new HostPort(host, p);
        }

        @Override
        public String toString() {
            return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
        }
    }
}
