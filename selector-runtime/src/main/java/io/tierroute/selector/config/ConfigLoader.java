package io.tierroute.selector.config;

import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterFile;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.scheduling.RouteRequest;
import io.tierroute.selector.scheduling.SelectorSettings;
import io.tierroute.selector.scheduling.WorkerSpec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads and validates the selector's configuration file (YAML or JSON; every key is documented in
 * {@code examples/selector.yaml}). Every error is a {@link ConfigException} naming the file, the
 * field path and what is wrong; unknown keys are rejected by name.
 */
public final class ConfigLoader {

    private static final int MAX_WORKERS = 100_000;
    /**
     * Longest worker, scope or model name, in characters: what the HTTP API allows for an id, and what the fitting job
     * accepts in a record (a longer name's every decision record would be dead-lettered there).
     */
    public static final int MAX_NAME_CHARS = 256;

    private ConfigLoader() {}

    /** Loads {@code file}; a relative {@code parametersFile} resolves against the file's directory. */
    public static SelectorConfig load(Path file) {
        String name = file.toString();
        try {
            Path dir = file.toAbsolutePath().getParent();
            return fromTree(ConfigNode.root(Documents.read(file)), file, dir);
        } catch (ConfigException e) {
            throw e.file() == null ? e.inFile(name) : e;
        }
    }

    /** Builds a configuration from YAML text (tests); relative paths resolve against {@code baseDir}. */
    public static SelectorConfig parse(String yaml, Path baseDir) {
        return fromTree(ConfigNode.root(Documents.parse(yaml.getBytes(java.nio.charset.StandardCharsets.UTF_8), false)),
                null, baseDir);
    }

    private static SelectorConfig fromTree(ConfigNode root, Path source, Path baseDir) {
        root.object("model", "defaults", "workers", "routing", "parameters", "parametersFile", "index", "server", "admin",
                "access", "kafka");

        // model
        SelectorSettings.Builder sb;
        String modelName = "default";
        int blockSize = 16;
        double bytesPerToken = 256 * 1024;
        ConfigNode model = root.get("model");
        if (model != null) {
            model.object("name", "blockSize", "bytesPerToken");
            modelName = model.string("name", modelName);
            checkNameLength(modelName, model.get("name"), "model name");
            blockSize = (int) model.integer("blockSize", blockSize, 1, 1 << 20, "tokens");
            bytesPerToken = model.number("bytesPerToken", bytesPerToken, 0, true, 1e12, "bytes");
        }

        // defaults + workers
        WorkerDefaults defaults = WorkerDefaults.BUILT_IN;
        ConfigNode d = root.get("defaults");
        if (d != null) {
            d.object("kvCapacityTokens", "tiers", "maxInFlight", "maxWaiting", "approximate");
            defaults = worker(d, defaults);
        }
        List<WorkerSpec> workers = workers(root.require("workers"), defaults);

        sb = SelectorSettings.builder(workers).model(modelName).blockSize(blockSize).bytesPerToken(bytesPerToken);

        // routing
        ConfigNode r = root.get("routing");
        if (r != null) {
            r.object("temperature", "explorationEpsilon", "defaultMaxTokens", "textCharsPerBlock", "approximateTtl",
                    "computingClaims", "computingClaimTtl", "requestMaxAge", "telemetryMaxAge", "workflowMaxAge",
                    "maxWorkflows", "toolWarmTime", "maxQueued", "maxQueueWait", "queueAgeWeight", "queueOverdueAfter", "holdAtWaiting",
                    "holdAtCheapestWaiting",
                    "holdAtCheapestSilentAfter", "spreadWithin", "ownKvAccounting", "seed");
            SelectorSettings dflt = SelectorSettings.builder(workers).build();
            int maxQueued = (int) r.integer("maxQueued", dflt.maxQueued(), 0, 10_000_000, "requests");
            int holdAtWaiting = (int) r.integer("holdAtWaiting", dflt.holdAtWaiting(), 0, 1_000_000, "requests");
            int holdAtCheapestWaiting = (int) r.integer("holdAtCheapestWaiting", dflt.holdAtCheapestWaiting(), 0,
                    1_000_000, "requests");
            // SelectorSettings' rule, said here with the keys' paths as the file writes them.
            String holding = SelectorSettings.holdingWithoutQueue(holdAtWaiting, holdAtCheapestWaiting, maxQueued);
            if (holding != null) {
                throw r.require(holding).error((holdAtWaiting > 0 ? holdAtWaiting : holdAtCheapestWaiting)
                        + SelectorSettings.heldButNoQueue(r.require("maxQueued").path()));
            }
            sb.temperature(r.number("temperature", dflt.temperature(), 0, false, 1e6, ""))
                    .explorationEpsilon(r.number("explorationEpsilon", dflt.explorationEpsilon(), 0, false, 1, ""))
                    .defaultMaxTokens((int) r.integer("defaultMaxTokens", dflt.defaultMaxTokens(), 1,
                            RouteRequest.MAX_INPUT_TOKENS, "tokens"))
                    // Its default follows the model's block size (4 characters per token), not the default model's.
                    .textCharsPerBlock((int) r.integer("textCharsPerBlock",
                            SelectorSettings.defaultTextCharsPerBlock(blockSize), 1, 1 << 20, "characters"))
                    .approximateTtl(r.duration("approximateTtl", dflt.approximateTtl()))
                    .computingClaims(r.bool("computingClaims", dflt.computingClaims()))
                    .ownKvAccounting(r.bool("ownKvAccounting", dflt.ownKvAccounting()))
                    .computingClaimTtl(r.duration("computingClaimTtl", dflt.computingClaimTtl()))
                    .requestMaxAge(r.duration("requestMaxAge", dflt.requestMaxAge()))
                    .telemetryMaxAge(r.duration("telemetryMaxAge", dflt.telemetryMaxAge()))
                    .workflowMaxAge(r.duration("workflowMaxAge", dflt.workflowMaxAge()))
                    .maxWorkflows((int) r.integer("maxWorkflows", dflt.maxWorkflows(), 1, 100_000_000, "workflows"))
                    .toolWarmTime(r.duration("toolWarmTime", dflt.toolWarmTime()))
                    .maxQueued(maxQueued)
                    .maxQueueWait(r.duration("maxQueueWait", dflt.maxQueueWait()))
                    .queueAgeWeight(r.number("queueAgeWeight", dflt.queueAgeWeight(), 0, false,
                            SelectorSettings.MAX_QUEUE_AGE_WEIGHT, "µs of cost per µs waited"))
                    .queueOverdueAfter(r.durationOrZero("queueOverdueAfter", dflt.queueOverdueAfter()))
                    .holdAtWaiting(holdAtWaiting)
                    .holdAtCheapestWaiting(holdAtCheapestWaiting)
                    .holdAtCheapestSilentAfter(r.durationOrZero("holdAtCheapestSilentAfter",
                            dflt.holdAtCheapestSilentAfter()))
                    .spreadWithin((int) r.integer("spreadWithin", dflt.spreadWithin(), 0, 1_000_000, "requests"));
            ConfigNode seed = r.get("seed");
            sb.seed(seed == null ? null : seed.asLong());
        }
        SelectorSettings settings;
        List<String> warnings = new ArrayList<>();
        try {
            settings = sb.build();
        } catch (IllegalArgumentException e) {
            throw root.error(e.getMessage());
        }

        // parameters
        CostParameters cost = CostParameters.DEFAULTS;
        ConfigNode p = root.get("parameters");
        if (p != null) {
            cost = ParameterFile.costOverrides(p, cost);
        }
        Path paramsFile = null;
        ParameterSet initial;
        List<String> names = workers.stream().map(WorkerSpec::name).toList();
        ConfigNode pf = root.get("parametersFile");
        if (pf != null) {
            Path given = pf.asPath();
            paramsFile = given.isAbsolute() || baseDir == null ? given : baseDir.resolve(given).normalize();
            try {
                initial = ParameterFile.load(paramsFile, names, cost);
            } catch (ConfigException e) {
                throw pf.error("cannot load the parameter file: " + e.getMessage());
            }
        } else {
            initial = ParameterSet.builder(workers.size()).cost(cost).source(source == null ? "config" : source.toString())
                    .build();
        }

        // index
        long maxBlocks = 10_000_000;
        int queueCapacity = 65_536;
        ConfigNode idx = root.get("index");
        if (idx != null) {
            idx.object("maxBlocks", "queueCapacity");
            // A sanity floor (10 000 blocks of 16 are 160 k tokens): a run larger than the cap is pruned with everything
            // older, which would leave the index empty after each such event; the cap should be far above one prompt.
            // The ceiling: the index's block table tops out at 2^30 slots, half of them usable (≈ 537 M blocks); past
            // that each new block would rebuild the whole table.
            maxBlocks = idx.integer("maxBlocks", maxBlocks, 10_000, 500_000_000L, "blocks");
            queueCapacity = (int) idx.integer("queueCapacity", queueCapacity, 1, 10_000_000, "commands");
        }

        // server
        ServerSettings server = ServerSettings.DEFAULTS;
        ConfigNode s = root.get("server");
        if (s != null) {
            s.object("host", "port", "maxBodyBytes", "ioThreads", "workerThreads", "maxHeaderBytes", "maxHeaders",
                    "maxBatchEvents", "tls", "idleTimeoutMs", "requestParseTimeoutMs", "bodyTimeoutMs");
            ConfigNode tn = s.get("tls");
            server = new ServerSettings(s.string("host", server.host()),
                    (int) s.integer("port", server.port(), 0, 65535, ""),
                    (int) s.integer("maxBodyBytes", server.maxBodyBytes(), 1024, 1L << 30, "bytes"),
                    (int) s.integer("ioThreads", server.ioThreads(), 1, 256, "threads"),
                    (int) s.integer("workerThreads", server.workerThreads(), 1, 1024, "threads"),
                    (int) s.integer("maxHeaderBytes", server.maxHeaderBytes(), 1024, 16L << 20, "bytes"),
                    (int) s.integer("maxHeaders", server.maxHeaders(), 8, 10_000, "headers"),
                    (int) s.integer("maxBatchEvents", server.maxBatchEvents(), 1, 10_000_000, "events"),
                    tn == null ? null : tls(tn, baseDir),
                    (int) s.integer("idleTimeoutMs", server.idleTimeoutMs(), 1_000, Integer.MAX_VALUE, "ms"),
                    (int) s.integer("requestParseTimeoutMs", server.requestParseTimeoutMs(), 100, 600_000, "ms"),
                    (int) s.integer("bodyTimeoutMs", server.bodyTimeoutMs(), 100, 600_000, "ms"));
        }

        // admin
        String tokenEnv = "TIERROUTE_ADMIN_TOKEN";
        ConfigNode a = root.get("admin");
        if (a != null) {
            a.object("tokenEnv");
            tokenEnv = a.string("tokenEnv", tokenEnv);
            if (!tokenEnv.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw a.require("tokenEnv").error("must be an environment variable name, got '" + tokenEnv + "'");
            }
        }
        AccessSettings access = AccessSettings.DEFAULTS;
        ConfigNode ac = root.get("access");
        if (ac != null) {
            ac.object("read", "readTokenEnv", "data", "dataTokenEnv");
            access = new AccessSettings(mode(ac, "read", access.read()), envName(ac, "readTokenEnv", access.readTokenEnv()),
                    mode(ac, "data", access.data()), envName(ac, "dataTokenEnv", access.dataTokenEnv()));
            // A token variable named for a group left open reads as "this group needs a token", yet its routes answer
            // everyone: say so at start.
            noEffect(ac, access.read() == AccessSettings.Mode.TOKEN, "while access.read is open (its routes answer "
                    + "everyone; set access.read: token to require it)", warnings, "readTokenEnv");
            noEffect(ac, access.data() == AccessSettings.Mode.TOKEN, "while access.data is open (its routes answer "
                    + "everyone; set access.data: token to require it)", warnings, "dataTokenEnv");
        }
        ConfigNode k = root.get("kafka");
        KafkaSettings kafka = k == null ? null : kafka(k, baseDir, warnings);
        if (r != null) {
            noEffect(r, settings.computingClaims(), "while routing.computingClaims is false", warnings, "computingClaimTtl");
            noEffect(r, settings.queueOverdueAfter().compareTo(settings.maxQueueWait()) < 0, "at or above "
                    + "routing.maxQueueWait (a request is refused before it is overdue)", warnings, "queueOverdueAfter");
            noEffect(r, workers.stream().anyMatch(WorkerSpec::approximate), "while no worker is approximate (it is the "
                    + "life of the entries routing writes for approximate workers)", warnings, "approximateTtl");
        }
        return new SelectorConfig(source, settings, server, cost, paramsFile, initial, maxBlocks, queueCapacity, tokenEnv,
                access, kafka, warnings);
    }

    private static AccessSettings.Mode mode(ConfigNode n, String key, AccessSettings.Mode dflt) {
        String v = n.string(key, dflt.name().toLowerCase(java.util.Locale.ROOT));
        return switch (v) {
            case "open" -> AccessSettings.Mode.OPEN;
            case "token" -> AccessSettings.Mode.TOKEN;
            default -> throw n.require(key).error("must be open or token, got '" + v + "'");
        };
    }

    private static String envName(ConfigNode n, String key, String dflt) {
        String v = n.string(key, dflt);
        if (!v.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw n.require(key).error("must be an environment variable name, got '" + v + "'");
        }
        return v;
    }

    /** {@code server.tls}: the key store must exist now, so that a typo fails the config load and not the first client. */
    private static TlsSettings tls(ConfigNode t, Path baseDir) {
        t.object("keyStore", "keyStoreType", "keyStorePasswordEnv");
        Path ks = resolve(t.require("keyStore"), baseDir);
        if (java.nio.file.Files.isDirectory(ks)) { // isReadable passes a directory, which the server then refused
            throw t.require("keyStore").error("the key store " + ks + " is a directory: give the PKCS12 or JKS file");
        }
        if (!java.nio.file.Files.isReadable(ks)) {
            throw t.require("keyStore").error("cannot read the key store " + ks);
        }
        String type = t.string("keyStoreType", "PKCS12").toUpperCase(java.util.Locale.ROOT);
        if (!type.equals("PKCS12") && !type.equals("JKS")) {
            throw t.require("keyStoreType").error("must be PKCS12 or JKS, got '" + type + "'");
        }
        return new TlsSettings(ks, type, envName(t, "keyStorePasswordEnv", TlsSettings.DEFAULT_PASSWORD_ENV));
    }

    private static Path resolve(ConfigNode n, Path baseDir) {
        Path given = n.asPath();
        return given.isAbsolute() || baseDir == null ? given : baseDir.resolve(given).normalize();
    }

    private static final java.util.Set<String> COMPRESSION = java.util.Set.of("none", "gzip", "snappy", "lz4", "zstd");

    /** The {@code kafka:} section (see {@link KafkaSettings}); every error names the field. */
    private static KafkaSettings kafka(ConfigNode k, Path baseDir, List<String> warnings) {
        k.object("bootstrapServers", "scope", "clientId", "selectorId", "propertiesFile", "properties", "params",
                "kvEvents", "decisions", "replicaSync");
        String bootstrap = k.require("bootstrapServers").asText();
        for (String hp : bootstrap.split(",")) {
            String t = hp.trim();
            int colon = t.lastIndexOf(':');
            boolean ok = colon > 0 && colon < t.length() - 1;
            if (ok) {
                try {
                    int port = Integer.parseInt(t.substring(colon + 1));
                    ok = port > 0 && port <= 65535;
                } catch (NumberFormatException e) {
                    ok = false;
                }
            }
            if (!ok) {
                throw k.require("bootstrapServers").error("must be host:port[,host:port...], got '" + bootstrap + "'");
            }
        }
        String scope = k.string("scope", "default");
        String scopeProblem = scopeProblem(scope);
        if (scopeProblem != null) {
            throw k.require("scope").error(scopeProblem);
        }
        String clientId = k.string("clientId", "tierroute-selector-" + hostName());
        if (!clientId.matches("[A-Za-z0-9._-]+")) {
            throw k.require("clientId").error("may hold only letters, digits, '.', '_' and '-', got '" + clientId + "'");
        }
        String selectorId = k.string("selectorId", clientId);
        if (selectorId.isBlank()) {
            throw k.require("selectorId").error("must name this replica, got an empty string");
        }
        // Client settings: a properties file first (as Kafka's own tools' --command-config; it can hold the
        // SASL password and live in a secret volume), then the inline map, which wins on a shared key.
        java.util.Map<String, String> props = new java.util.LinkedHashMap<>();
        ConfigNode pf = k.get("propertiesFile");
        if (pf != null) {
            for (Map.Entry<String, String> e : KafkaPropertiesFile.read(resolve(pf, baseDir), pf).entrySet()) {
                checkClientProperty(e.getKey(), pf, "in " + pf.asText());
                checkClientValue(e.getKey(), e.getValue(), pf, "in " + pf.asText());
                clientPropertyWarnings(e.getKey(), pf.path() + " (" + pf.asText() + ")", warnings);
                props.put(e.getKey(), e.getValue());
            }
        }
        ConfigNode pn = k.get("properties");
        if (pn != null) {
            for (Map.Entry<String, ConfigNode> e : pn.entries()) {
                checkClientProperty(e.getKey(), e.getValue(), "in properties");
                // A number is natural for most settings (linger.ms: 5); a secret must be text as written (0123 is 83).
                String value = secretSetting(e.getKey()) ? e.getValue().asText() : e.getValue().asTextOrScalar();
                checkClientValue(e.getKey(), value, e.getValue(), "in properties");
                clientPropertyWarnings(e.getKey(), pn.path(), warnings);
                props.put(e.getKey(), value);
            }
        }

        KafkaSettings.Params params = KafkaSettings.Params.DEFAULTS;
        ConfigNode p = k.get("params");
        if (p != null) {
            p.object("enabled", "retainedSnapshots", "startupTimeout", "requireOnStart", "rhoMaxAge");
            params = new KafkaSettings.Params(p.bool("enabled", params.enabled()),
                    (int) p.integer("retainedSnapshots", params.retainedSnapshots(), 1, 10_000, "snapshots"),
                    p.duration("startupTimeout", params.startupTimeout()),
                    p.bool("requireOnStart", params.requireOnStart()),
                    rhoMaxAge(p, params.rhoMaxAge()));
            noEffect(p, params.enabled(), "while kafka.params.enabled is false", warnings,
                    "retainedSnapshots", "startupTimeout", "requireOnStart", "rhoMaxAge");
        }
        KafkaSettings.KvEvents kv = KafkaSettings.KvEvents.DEFAULTS;
        ConfigNode kn = k.get("kvEvents");
        if (kn != null) {
            kn.object("enabled", "startFrom");
            String from = kn.string("startFrom", kv.startFrom());
            if (!from.equals("latest") && !from.equals("earliest")) {
                throw kn.require("startFrom").error("must be latest or earliest, got '" + from + "'");
            }
            kv = new KafkaSettings.KvEvents(kn.bool("enabled", kv.enabled()), from);
            noEffect(kn, kv.enabled(), "while kafka.kvEvents.enabled is false", warnings, "startFrom");
        }
        KafkaSettings.Decisions dec = KafkaSettings.Decisions.DEFAULTS;
        ConfigNode dn = k.get("decisions");
        if (dn != null) {
            dn.object("enabled", "bufferSize", "linger", "batchBytes", "compression");
            String compression = dn.string("compression", dec.compression());
            if (!COMPRESSION.contains(compression)) {
                throw dn.require("compression").error("must be one of none, gzip, snappy, lz4, zstd, got '" + compression + "'");
            }
            java.time.Duration linger = dec.linger();
            ConfigNode ln = dn.get("linger");
            if (ln != null) {
                linger = ln.asDuration();
                if (linger.toMillis() > 60_000) {
                    throw ln.error("must be at most 60s, got '" + ln.asText() + "'");
                }
            }
            dec = new KafkaSettings.Decisions(dn.bool("enabled", dec.enabled()),
                    (int) dn.integer("bufferSize", dec.bufferSize(), 1, 10_000_000, "decisions"),
                    linger,
                    (int) dn.integer("batchBytes", dec.batchBytes(), 1024, 64L * 1024 * 1024, "bytes"),
                    compression);
            noEffect(dn, dec.enabled(), "while kafka.decisions.enabled is false", warnings,
                    "bufferSize", "linger", "batchBytes", "compression");
        }
        return new KafkaSettings(bootstrap, scope, clientId, selectorId, props, params, kv, dec,
                replicaSync(k.get("replicaSync"), warnings));
    }

    /** The {@code kafka.replicaSync} section ({@link KafkaSettings.ReplicaSync}), or its defaults (off). */
    private static KafkaSettings.ReplicaSync replicaSync(ConfigNode rn, List<String> warnings) {
        KafkaSettings.ReplicaSync d = KafkaSettings.ReplicaSync.DEFAULTS;
        if (rn == null) {
            return d;
        }
        rn.object("enabled", "lookback", "pendingMaxAge", "bufferSize", "direct");
        java.time.Duration lookback = rn.duration("lookback", d.lookback(), java.time.Duration.ZERO,
                java.time.Duration.ofHours(1), "the topic keeps an hour");
        java.time.Duration pending = rn.duration("pendingMaxAge", d.pendingMaxAge(), java.time.Duration.ofSeconds(1),
                java.time.Duration.ofMinutes(10), "an event waits for its admission");
        KafkaSettings.ReplicaSync r = new KafkaSettings.ReplicaSync(rn.bool("enabled", d.enabled()), lookback, pending,
                (int) rn.integer("bufferSize", d.bufferSize(), 1, 10_000_000, "messages"), direct(rn.get("direct")));
        noEffect(rn, r.enabled(), "while kafka.replicaSync.enabled is false", warnings,
                "lookback", "pendingMaxAge", "bufferSize", "direct");
        return r;
    }

    /** The {@code kafka.replicaSync.direct} section ({@link KafkaSettings.Direct}), or off. */
    private static KafkaSettings.Direct direct(ConfigNode dn) {
        KafkaSettings.Direct d = KafkaSettings.Direct.OFF;
        if (dn == null) {
            return d;
        }
        dn.object("listen", "peers", "keyEnv", "maxAge", "bufferSize");
        ConfigNode ln = dn.require("listen");
        KafkaSettings.HostPort listen = hostPort(ln, 0);
        if (listen.port() == 0) { // the record takes it (tests bind any free port); a deployment's peers cannot
            throw ln.error("port 0 would take any free port, which no peer can know to send to; give the port the "
                    + "peers list for this replica (e.g. 0.0.0.0:7411)");
        }
        List<KafkaSettings.HostPort> peers = new ArrayList<>();
        ConfigNode pn = dn.require("peers");
        if (!pn.isArray() || pn.elements().isEmpty()) {
            throw pn.error("must be a non-empty list of host:port (the replicas' listen addresses; may include this "
                    + "one's)");
        }
        for (ConfigNode p : pn.elements()) {
            KafkaSettings.HostPort peer = hostPort(p, 1);
            int first = KafkaSettings.Direct.indexOfSame(peers, peer);
            if (first >= 0) { // each datagram would go twice, and the copy count as a duplicate Kafka brought first
                throw p.error("'" + peer + "' is listed twice (also " + pn.path() + "[" + first + "])");
            }
            peers.add(peer);
        }
        if (peers.size() > KafkaSettings.Direct.MAX_PEERS) {
            throw pn.error("lists " + peers.size() + " peers; at most " + KafkaSettings.Direct.MAX_PEERS);
        }
        java.time.Duration maxAge = dn.duration("maxAge", d.maxAge(), java.time.Duration.ofMillis(100),
                java.time.Duration.ofMinutes(10), "a datagram is taken");
        return new KafkaSettings.Direct(listen, peers, envName(dn, "keyEnv", d.keyEnv()), maxAge,
                (int) dn.integer("bufferSize", d.bufferSize(), 1, 10_000_000, "messages"));
    }

    private static KafkaSettings.HostPort hostPort(ConfigNode n, int minPort) {
        try {
            return KafkaSettings.HostPort.parse(n.asText(), minPort);
        } catch (IllegalArgumentException e) {
            throw n.error(e.getMessage());
        }
    }

    /** A warning for each of {@code keys} that {@code section} gives although what it sets is off ({@code why}). */
    private static void noEffect(ConfigNode section, boolean on, String why, List<String> warnings, String... keys) {
        if (on) {
            return;
        }
        for (String key : keys) {
            ConfigNode given = section.get(key);
            if (given != null) {
                warnings.add(given.path() + " has no effect " + why);
            }
        }
    }

    /** The settings of the decisions producer that kafka.decisions sets, by the Kafka name a client property would use. */
    private static final Map<String, String> DECISIONS_SETTINGS = Map.of("linger.ms", "kafka.decisions.linger",
            "batch.size", "kafka.decisions.batchBytes", "compression.type", "kafka.decisions.compression");

    /**
     * Warnings for a client setting no Kafka client knows (a typo: Kafka itself only says so at INFO, which the
     * command's logging hides, and the setting does nothing) and for one that overrides a kafka.decisions setting.
     */
    private static void clientPropertyWarnings(String key, String where, List<String> warnings) {
        if (KafkaClientValues.unknown(key)) {
            warnings.add(where + ": '" + key + "' is no setting of a Kafka client (a typo?): Kafka ignores it unless a "
                    + "plugin reads it");
        }
        String decisions = DECISIONS_SETTINGS.get(key);
        if (decisions != null) {
            warnings.add(where + ": '" + key + "' overrides " + decisions + " for the decisions producer (and is "
                    + "not checked as that is); set " + decisions + " instead");
        }
    }

    /** A Kafka client setting that holds a secret: its value must be written as text (see ConfigNode.asText). */
    static boolean secretSetting(String key) {
        String k = key.toLowerCase(java.util.Locale.ROOT);
        return k.contains("password") || k.contains("secret") || k.contains("token") || k.endsWith("jaas.config")
                || k.endsWith(".key");
    }

    /** Keys the selector sets itself; messages name the key, never a value (values may be passwords). */
    private static void checkClientProperty(String key, ConfigNode at, String where) {
        if (key.equals("bootstrap.servers") || key.equals("client.id")) {
            throw at.error("'" + key + "' " + where + ": set it with kafka."
                    + (key.equals("client.id") ? "clientId" : "bootstrapServers") + " instead");
        }
        if (KafkaSettings.RESERVED_PROPERTIES.contains(key)) {
            throw at.error("'" + key + "' " + where + " is set by the selector itself and cannot be overridden ("
                    + KafkaSettings.RESERVED_WHY + ")");
        }
    }

    /**
     * What is wrong with {@code scope} as a parameter scope's name (its {@code kafka.scope}), or null: the one rule,
     * which the CLI's {@code --scope} applies too, so a demo never runs a scope no selector could serve.
     */
    public static String scopeProblem(String scope) {
        if (scope.isBlank()) {
            return "must name a parameter scope, got an empty string";
        }
        if (scope.length() > MAX_NAME_CHARS) {
            return "a scope has at most " + MAX_NAME_CHARS + " characters, got " + scope.length();
        }
        if (scope.contains("#")) {
            return "must not contain '#' (it separates scope and version in params keys), got '" + scope + "'";
        }
        return null;
    }

    private static void checkNameLength(String name, ConfigNode at, String what) {
        if (name.length() > MAX_NAME_CHARS && at != null) {
            throw at.error("a " + what + " has at most " + MAX_NAME_CHARS + " characters, got " + name.length());
        }
    }

    /** A value Kafka refuses for {@code key}; the message names the key and Kafka's reason, never the value. */
    private static void checkClientValue(String key, String value, ConfigNode at, String where) {
        String problem = KafkaClientValues.problem(key, value);
        if (problem != null) {
            throw at.error("'" + key + "' " + where + ": " + problem);
        }
    }

    private static String hostName() {
        String h = System.getenv("HOSTNAME");
        if (h == null || h.isBlank()) {
            try {
                h = java.net.InetAddress.getLocalHost().getHostName();
            } catch (java.io.IOException | RuntimeException e) {
                h = "local";
            }
        }
        return h.replaceAll("[^A-Za-z0-9._-]", "-");
    }

    /** Per-worker settings before a name is attached; the fallback for every worker. */
    private record WorkerDefaults(long kvCapacityTokens, double[] bandwidth, int maxInFlight, int maxWaiting,
                                  boolean approximate) {
        static final WorkerDefaults BUILT_IN = new WorkerDefaults(400_000, pcie(), 0, 0, false);

        private static double[] pcie() {
            double[] bw = new double[Tier.COUNT];
            bw[Tier.CPU.ordinal()] = 64e9;
            return bw;
        }
    }

    private static WorkerDefaults worker(ConfigNode n, WorkerDefaults base) {
        long kv = n.integer("kvCapacityTokens", base.kvCapacityTokens(), 1, Long.MAX_VALUE, "tokens");
        double[] bw = base.bandwidth();
        ConfigNode tiers = n.get("tiers");
        if (tiers != null) {
            bw = new double[Tier.COUNT]; // a worker's tiers replace the defaults' tiers
            for (Map.Entry<String, ConfigNode> e : tiers.entries()) {
                Tier t;
                try {
                    t = Tier.parse(e.getKey());
                } catch (IllegalArgumentException ex) {
                    throw e.getValue().error(ex.getMessage());
                }
                if (t == Tier.HBM) {
                    throw e.getValue().error("hbm needs no bandwidth (its hits cost no transfer); list cpu, nvme or remote");
                }
                bw[t.ordinal()] = e.getValue().checkRange(e.getValue().asNumber(), 0, true, Double.MAX_VALUE, "bytes/s");
            }
        }
        int maxInFlight = (int) n.integer("maxInFlight", base.maxInFlight(), 0, Integer.MAX_VALUE, "requests");
        int maxWaiting = (int) n.integer("maxWaiting", base.maxWaiting(), 0, Integer.MAX_VALUE, "requests");
        boolean approximate = n.bool("approximate", base.approximate());
        return new WorkerDefaults(kv, bw, maxInFlight, maxWaiting, approximate);
    }

    private static List<WorkerSpec> workers(ConfigNode node, WorkerDefaults defaults) {
        List<WorkerSpec> out = new ArrayList<>();
        if (node.isObject()) {
            node.object("count", "namePrefix", "kvCapacityTokens", "tiers", "maxInFlight", "maxWaiting", "approximate");
            node.require("count");
            int count = (int) node.integer("count", 0, 1, MAX_WORKERS, "workers");
            String prefix = node.string("namePrefix", "w");
            // the longest name it makes, as the list form's are checked: the job dead-letters longer ones' records
            checkNameLength(prefix + (count - 1), node.get("namePrefix"), "worker name (namePrefix and its number)");
            WorkerDefaults w = worker(node, defaults);
            for (int i = 0; i < count; i++) {
                out.add(new WorkerSpec(prefix + i, w.kvCapacityTokens(), w.bandwidth(), w.approximate(),
                        w.maxInFlight(), w.maxWaiting()));
            }
            return out;
        }
        if (!node.isArray()) {
            throw node.error("must be a list of workers or a mapping with count and namePrefix");
        }
        List<ConfigNode> list = node.elements();
        if (list.isEmpty()) {
            throw node.error("at least one worker is required");
        }
        if (list.size() > MAX_WORKERS) {
            throw node.error("at most " + MAX_WORKERS + " workers, got " + list.size());
        }
        Map<String, String> seen = new HashMap<>();
        for (ConfigNode n : list) {
            n.object("name", "kvCapacityTokens", "tiers", "maxInFlight", "maxWaiting", "approximate");
            ConfigNode nameNode = n.require("name");
            String name = nameNode.asText();
            checkNameLength(name, nameNode, "worker name");
            String before = seen.putIfAbsent(name, n.path());
            if (before != null) {
                throw nameNode.error("duplicate worker name '" + name + "' (also at " + before + ")");
            }
            WorkerDefaults w = worker(n, defaults);
            out.add(new WorkerSpec(name, w.kvCapacityTokens(), w.bandwidth(), w.approximate(), w.maxInFlight(),
                    w.maxWaiting()));
        }
        return out;
    }

    /** The least non-zero {@code kafka.params.rhoMaxAge}. */
    static final Duration MIN_RHO_MAX_AGE = Duration.ofSeconds(5);

    /**
     * {@code kafka.params.rhoMaxAge}: 0s (ρ never ages), or at least {@link #MIN_RHO_MAX_AGE}. A ρ reaches the selector
     * seconds after it was measured (telemetry each second, the fitting job, its snapshot a second later): a shorter age
     * would zero every ρ as it arrives, and so switch the congestion term off without saying so.
     */
    private static Duration rhoMaxAge(ConfigNode params, Duration dflt) {
        Duration d = params.durationOrZero("rhoMaxAge", dflt);
        if (!d.isZero() && d.compareTo(MIN_RHO_MAX_AGE) < 0) {
            throw params.require("rhoMaxAge").error("must be 0s (rho never ages) or at least "
                    + MIN_RHO_MAX_AGE.toSeconds() + "s: a rho reaches the selector seconds after it was measured, and a "
                    + "shorter age would zero every rho as it arrives; got '" + params.require("rhoMaxAge").asText() + "'");
        }
        return d;
    }
}
