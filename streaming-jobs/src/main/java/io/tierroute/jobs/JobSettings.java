package io.tierroute.jobs;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every argument of the fitting job, with defaults. Built with {@link #builder()} or parsed from
 * {@code --name value} / {@code --name=value} arguments by {@link #parse(String...)}, which names the
 * flag and the expected form of a bad value. Durations: {@code 500ms}, {@code 2s}, {@code 5m},
 * {@code 1h}, {@code 1d}, or ISO-8601 ({@code PT0.25S}). {@link #toArguments()} writes a value back as
 * arguments that parse to an equal one: that is how the job's operators carry their settings to the task
 * managers (Flink ships an operator's fields with Java serialization, its contract for functions; arguments keep this
 * type out of it).
 *
 * @param bootstrapServers Kafka {@code bootstrap.servers}
 * @param kafkaProperties path of a Java properties file of Kafka client settings for a secured broker
 *     ({@code security.protocol}, {@code sasl.*}, {@code ssl.*}), given to every Kafka client of the job; read where
 *     the job's main runs (the JobManager), when the sources and sinks are built ({@link KafkaWiring}); null = none
 * @param jobName Flink job name; also the snapshots' {@code producer} and the dead letters' consumer
 * @param groupId Kafka consumer group of the sources (offsets are committed on checkpoints)
 * @param transactionalIdPrefix prefix of the exactly-once params sink's transactional ids
 * @param parallelism default parallelism of the job
 * @param checkpointInterval exactly-once checkpoint interval (the params sink commits on checkpoints)
 * @param checkpointDir checkpoint storage URI (e.g. {@code file:///var/flink/ckpt}); null = the cluster's
 * @param stateBackend {@code hashmap} or {@code rocksdb} (RocksDB comes with the Flink distribution)
 * @param publishInterval snapshot cadence per scope (a scope with no new input publishes nothing)
 * @param forestInterval how often the quantile forest is retrained on the recent sample
 * @param decisionTimeout how long a decision waits for its completion (event time)
 * @param completionGrace how long a completion waits for its decision (event time)
 * @param outOfOrderness bounded out-of-orderness of the watermarks
 * @param idleness a source partition without records for this long stops holding the watermark back
 * @param maxWatermarkDrift watermark alignment of the telemetry, decisions and completions sources: none
 *     may run further than this ahead of the slowest in event time (0 = off)
 * @param stateTtl running time (the wall clock without the job's downtime) a join side waits when the watermark stalls
 *     (the backstop of the event-time deadlines); then it is counted as unmatched and removed
 * @param maxFutureSkew event times further than this past the wall clock are dead letters. Default 1 min: below the
 *     join's completion grace (2 min), since a record within it moves event time (when the other partitions are idle)
 *     and shortens every join side's wait by as much
 * @param scopes a regular expression every scope this job fits matches in whole; a record of any other scope is a dead
 *     letter (null: every scope). Each scope the records name gets state that stays, so a producer that puts a
 *     per-request or per-worker id in {@code scope} would otherwise grow the job without bound
 * @param transactionTimeout Kafka producer transaction timeout of the params sink
 * @param sampleRows joined rows kept per scope: the forest's training sample and the replay on restore
 * @param telemetryReplayRows telemetry samples kept per scope for the replay on restore
 * @param historyVersions accepted snapshots per scope the job keeps to gate against (e.g. a pinned one)
 * @param regressionHorizonRows rows after which an old row keeps 1 % of its weight in the regression
 * @param regressionRefitRows the regression re-solves its Q_slack candidates and re-weights against the new
 *     fit every this many rows (and at every snapshot)
 * @param minFitSamples an estimator with fewer samples contributes no value (carried instead)
 * @param minForestRows joined rows needed before the forest is trained
 * @param forestTrees trees of the quantile forest
 * @param forestMaxBytes size budget of the forest (the snapshot must fit a Kafka message)
 * @param gateMinSamples the validation gate's {@code minSamples}
 * @param gateMinR2 the validation gate's {@code minR2}
 * @param gateMaxJumpFactor the validation gate's {@code maxJumpFactor}
 * @param cadenceClock {@code processing} (snapshots and forests on wall-clock timers) or {@code event}
 *     (deterministic: event-time ticks at multiples of the cadence, inputs applied in event-time order,
 *     forest trained synchronously at its tick, snapshot times = tick; see the README)
 * @param failAfterInputs fault injection for tests, 0 = off: in its first execution attempt a fitting
 *     subtask throws after this many inputs following its first completed checkpoint
 */
public record JobSettings(
        String bootstrapServers,
        String kafkaProperties,
        String jobName,
        String groupId,
        String transactionalIdPrefix,
        int parallelism,
        Duration checkpointInterval,
        String checkpointDir,
        String stateBackend,
        Duration publishInterval,
        Duration forestInterval,
        Duration decisionTimeout,
        Duration completionGrace,
        Duration outOfOrderness,
        Duration idleness,
        Duration maxWatermarkDrift,
        Duration stateTtl,
        Duration maxFutureSkew,
        String scopes,
        Duration transactionTimeout,
        int sampleRows,
        int telemetryReplayRows,
        int historyVersions,
        int regressionHorizonRows,
        int regressionRefitRows,
        int minFitSamples,
        int minForestRows,
        int forestTrees,
        long forestMaxBytes,
        long gateMinSamples,
        double gateMinR2,
        double gateMaxJumpFactor,
        String cadenceClock,
        long failAfterInputs) {

    /** The most rows {@code --sample-rows} and {@code --telemetry-replay-rows} take (gigabytes of state per scope). */
    public static final int MAX_REPLAY_ROWS = 10_000_000;
    /** The longest any duration flag may be (a year). */
    public static final Duration MAX_DURATION = Duration.ofDays(365);

    /** The largest forest budget {@code --forest-max-bytes} takes: half a params record. */
    public static final long FOREST_MAX_BYTES_LIMIT = KafkaWiring.MAX_REQUEST_BYTES / 2;

    /** {@link #cadenceClock()} value of the deterministic mode. */
    public static final String EVENT_CLOCK = "event";
    public static final String PROCESSING_CLOCK = "processing";

    public JobSettings {
        require(bootstrapServers != null && !bootstrapServers.isBlank(), "bootstrap-servers", "is required");
        require(kafkaProperties == null || !kafkaProperties.isBlank(), "kafka-properties", "must name a file");
        require(jobName != null && !jobName.isBlank(), "job-name", "must not be empty");
        require(groupId != null && !groupId.isBlank(), "group-id", "must not be empty");
        require(transactionalIdPrefix != null && !transactionalIdPrefix.isBlank(), "transactional-id-prefix",
            "must not be empty");
        require(parallelism >= 1, "parallelism", "must be >= 1, got " + parallelism);
        require(stateBackend.equals("hashmap") || stateBackend.equals("rocksdb"), "state-backend",
            "must be hashmap or rocksdb, got " + stateBackend);
        positive("checkpoint-interval", checkpointInterval);
        positive("publish-interval", publishInterval);
        positive("forest-interval", forestInterval);
        // the timers are aligned to whole milliseconds: a shorter interval divided by zero at the first input
        require(publishInterval.toMillis() >= 1, "publish-interval", "must be at least 1 ms, got " + publishInterval);
        require(forestInterval.toMillis() >= 1, "forest-interval", "must be at least 1 ms, got " + forestInterval);
        positive("decision-timeout", decisionTimeout);
        positive("completion-grace", completionGrace);
        require(!outOfOrderness.isNegative(), "out-of-orderness", "must be >= 0");
        atMostMax("out-of-orderness", outOfOrderness);
        positive("idleness", idleness);
        require(!maxWatermarkDrift.isNegative(), "max-watermark-drift", "must be >= 0 (0 = off)");
        atMostMax("max-watermark-drift", maxWatermarkDrift);
        positive("state-ttl", stateTtl);
        require(stateTtl.toMillis() >= 1, "state-ttl", "must be at least 1 ms, got " + stateTtl);
        // The backstop, in running time, should not expire a side whose event-time deadline is still ahead in a job that
        // keeps up; running time is not event time, so this bounds the common case, it does not rule the rest out.
        require(stateTtl.compareTo(decisionTimeout) >= 0 && stateTtl.compareTo(completionGrace) >= 0, "state-ttl",
            "must be at least --decision-timeout and --completion-grace, got " + stateTtl);
        positive("max-future-skew", maxFutureSkew);
        // Blank matches no scope (identifier() refuses an empty one): every record would be a dead letter.
        require(scopes == null || (!scopes.isBlank() && compiles(scopes)), "scopes",
            "must be a regular expression that some scope can match, got '" + scopes + "'");
        positive("transaction-timeout", transactionTimeout);
        require(transactionTimeout.compareTo(checkpointInterval) > 0, "transaction-timeout",
            "must be longer than the checkpoint interval");
        // Kafka's transaction.timeout.ms is an int: past it the producer failed at the first checkpoint, not here.
        require(transactionTimeout.toMillis() <= Integer.MAX_VALUE, "transaction-timeout",
            "must be at most " + Integer.MAX_VALUE + " ms (Kafka's transaction.timeout.ms is an int), got "
                + formatDuration(transactionTimeout));
        // the replay buffers count their chunks in int: near 2^31 rows the bound overflowed and every chunk was dropped
        require(sampleRows >= 1 && sampleRows <= MAX_REPLAY_ROWS, "sample-rows",
            "must be in [1, " + MAX_REPLAY_ROWS + "], got " + sampleRows);
        require(telemetryReplayRows >= 1 && telemetryReplayRows <= MAX_REPLAY_ROWS, "telemetry-replay-rows",
            "must be in [1, " + MAX_REPLAY_ROWS + "], got " + telemetryReplayRows);
        require(historyVersions >= 1, "history-versions", "must be >= 1");
        require(regressionHorizonRows >= 1, "regression-horizon-rows", "must be >= 1");
        require(regressionRefitRows >= 1, "regression-refit-rows", "must be >= 1");
        require(minFitSamples >= 1, "min-fit-samples", "must be >= 1");
        require(minForestRows >= 1, "min-forest-rows", "must be >= 1");
        require(forestTrees >= 1, "forest-trees", "must be >= 1");
        // The forest goes out in one params record of at most KafkaWiring.MAX_REQUEST_BYTES; half is left for the rest
        // of the snapshot (its ρ per worker and tier). Past it every publish failed and the job restarted for good.
        require(forestMaxBytes > 0 && forestMaxBytes <= FOREST_MAX_BYTES_LIMIT, "forest-max-bytes",
            "must be in [1, " + FOREST_MAX_BYTES_LIMIT + "] bytes (half the " + KafkaWiring.MAX_REQUEST_BYTES
                + "-byte record a snapshot may take), got " + forestMaxBytes);
        require(gateMinSamples >= 1, "gate-min-samples", "must be >= 1");
        require(gateMinR2 >= 0 && gateMinR2 <= 1, "gate-min-r2", "must be in [0, 1]");
        require(gateMaxJumpFactor > 1, "gate-max-jump-factor", "must be > 1");
        require(PROCESSING_CLOCK.equals(cadenceClock) || EVENT_CLOCK.equals(cadenceClock), "cadence-clock",
            "must be processing or event, got " + cadenceClock);
        require(failAfterInputs >= 0, "fail-after-inputs", "must be >= 0 (0 = off)");
    }

    /** The defaults, for a broker at {@code bootstrapServers}. */
    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.v = this;
        return b;
    }

    /** Mutable builder over a settings value; every setter re-validates on {@link #build()}. */
    public static final class Builder {
        private JobSettings v = null;
        private final Map<String, Object> set = new LinkedHashMap<>();

        public Builder set(String flag, Object value) {
            set.put(flag, value);
            return this;
        }

        public JobSettings build() {
            Map<String, Object> m = new LinkedHashMap<>(v == null ? DEFAULTS : v.asMap());
            for (Map.Entry<String, Object> e : set.entrySet()) {
                if (!m.containsKey(e.getKey())) {
                    throw new IllegalArgumentException("unknown setting --" + e.getKey());
                }
                m.put(e.getKey(), e.getValue());
            }
            return fromMap(m);
        }
    }

    private static final Map<String, Object> DEFAULTS = defaults();

    private static Map<String, Object> defaults() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("bootstrap-servers", "localhost:9092");
        m.put("kafka-properties", null);
        m.put("job-name", "tierroute-fitting-job");
        m.put("group-id", "tierroute-fitting-job");
        m.put("transactional-id-prefix", "tierroute-params");
        m.put("parallelism", 2);
        // 500 ms, not 1 s: a snapshot is live only once the checkpoint after its publish tick commits its transaction;
        // with 1 s the tick-to-commit phase alone took 0–1 s and the 2 s p99 target was missed in 2 of 6 runs
        // (streaming-jobs README, Latency), for ≈ 0.5 µs more checkpoint work per record
        m.put("checkpoint-interval", Duration.ofMillis(500));
        m.put("checkpoint-dir", null);
        m.put("state-backend", "hashmap");
        m.put("publish-interval", Duration.ofSeconds(1));
        m.put("forest-interval", Duration.ofMinutes(5));
        m.put("decision-timeout", Duration.ofMinutes(30));
        m.put("completion-grace", Duration.ofMinutes(2));
        m.put("out-of-orderness", Duration.ofSeconds(5));
        m.put("idleness", Duration.ofSeconds(10));
        m.put("max-watermark-drift", Duration.ZERO);
        m.put("state-ttl", Duration.ofHours(2));
        m.put("max-future-skew", Duration.ofMinutes(1));
        m.put("scopes", null);
        m.put("transaction-timeout", Duration.ofMinutes(10));
        m.put("sample-rows", 20_000);
        m.put("telemetry-replay-rows", 20_000);
        m.put("history-versions", 1000);
        m.put("regression-horizon-rows", 20_000);
        m.put("regression-refit-rows", 256);
        m.put("min-fit-samples", 200);
        m.put("min-forest-rows", 1000);
        m.put("forest-trees", 50);
        m.put("forest-max-bytes", 512L * 1024);
        m.put("gate-min-samples", 200L);
        m.put("gate-min-r2", 0.3);
        m.put("gate-max-jump-factor", 4.0);
        m.put("cadence-clock", PROCESSING_CLOCK);
        m.put("fail-after-inputs", 0L);
        return m;
    }

    private Map<String, Object> asMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("bootstrap-servers", bootstrapServers);
        m.put("kafka-properties", kafkaProperties);
        m.put("job-name", jobName);
        m.put("group-id", groupId);
        m.put("transactional-id-prefix", transactionalIdPrefix);
        m.put("parallelism", parallelism);
        m.put("checkpoint-interval", checkpointInterval);
        m.put("checkpoint-dir", checkpointDir);
        m.put("state-backend", stateBackend);
        m.put("publish-interval", publishInterval);
        m.put("forest-interval", forestInterval);
        m.put("decision-timeout", decisionTimeout);
        m.put("completion-grace", completionGrace);
        m.put("out-of-orderness", outOfOrderness);
        m.put("idleness", idleness);
        m.put("max-watermark-drift", maxWatermarkDrift);
        m.put("state-ttl", stateTtl);
        m.put("max-future-skew", maxFutureSkew);
        m.put("scopes", scopes);
        m.put("transaction-timeout", transactionTimeout);
        m.put("sample-rows", sampleRows);
        m.put("telemetry-replay-rows", telemetryReplayRows);
        m.put("history-versions", historyVersions);
        m.put("regression-horizon-rows", regressionHorizonRows);
        m.put("regression-refit-rows", regressionRefitRows);
        m.put("min-fit-samples", minFitSamples);
        m.put("min-forest-rows", minForestRows);
        m.put("forest-trees", forestTrees);
        m.put("forest-max-bytes", forestMaxBytes);
        m.put("gate-min-samples", gateMinSamples);
        m.put("gate-min-r2", gateMinR2);
        m.put("gate-max-jump-factor", gateMaxJumpFactor);
        m.put("cadence-clock", cadenceClock);
        m.put("fail-after-inputs", failAfterInputs);
        return m;
    }

    private static JobSettings fromMap(Map<String, Object> m) {
        return new JobSettings((String) m.get("bootstrap-servers"), (String) m.get("kafka-properties"),
            (String) m.get("job-name"),
            (String) m.get("group-id"), (String) m.get("transactional-id-prefix"), num(m, "parallelism").intValue(),
            dur(m, "checkpoint-interval"), (String) m.get("checkpoint-dir"), (String) m.get("state-backend"),
            dur(m, "publish-interval"), dur(m, "forest-interval"), dur(m, "decision-timeout"),
            dur(m, "completion-grace"), dur(m, "out-of-orderness"), dur(m, "idleness"), dur(m, "max-watermark-drift"),
            dur(m, "state-ttl"),
            dur(m, "max-future-skew"), (String) m.get("scopes"), dur(m, "transaction-timeout"), num(m, "sample-rows").intValue(),
            num(m, "telemetry-replay-rows").intValue(), num(m, "history-versions").intValue(),
            num(m, "regression-horizon-rows").intValue(), num(m, "regression-refit-rows").intValue(),
            num(m, "min-fit-samples").intValue(),
            num(m, "min-forest-rows").intValue(), num(m, "forest-trees").intValue(),
            num(m, "forest-max-bytes").longValue(), num(m, "gate-min-samples").longValue(),
            num(m, "gate-min-r2").doubleValue(), num(m, "gate-max-jump-factor").doubleValue(),
            (String) m.get("cadence-clock"), num(m, "fail-after-inputs").longValue());
    }

    private static boolean compiles(String regex) {
        try {
            java.util.regex.Pattern.compile(regex);
            return true;
        } catch (java.util.regex.PatternSyntaxException e) {
            return false;
        }
    }

    private static Number num(Map<String, Object> m, String k) {
        Object o = m.get(k);
        if (!(o instanceof Number n)) {
            throw new IllegalArgumentException("--" + k + " must be a number, got " + o);
        }
        return n;
    }

    private static Duration dur(Map<String, Object> m, String k) {
        Object o = m.get(k);
        if (!(o instanceof Duration d)) {
            throw new IllegalArgumentException("--" + k + " must be a duration, got " + o);
        }
        return d;
    }

    /**
     * Parses {@code --flag value} and {@code --flag=value} arguments over the defaults.
     *
     * @throws IllegalArgumentException naming the flag, the bad value and the expected form
     */
    public static JobSettings parse(String... args) {
        Map<String, Object> m = new LinkedHashMap<>(DEFAULTS);
        List<String> rest = new ArrayList<>(List.of(args));
        for (int i = 0; i < rest.size(); i++) {
            String a = rest.get(i);
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument '" + a + "': flags look like --name value; "
                    + "see --help");
            }
            String name = a.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (!m.containsKey(name)) { // before its value: an unknown flag last is unknown, not one missing a value
                throw new IllegalArgumentException("unknown flag --" + name + "; known: " + String.join(", ",
                    DEFAULTS.keySet().stream().map(k -> "--" + k).toList()));
            }
            if (eq < 0) {
                if (i + 1 >= rest.size()) {
                    throw new IllegalArgumentException("--" + name + " needs a value");
                }
                value = rest.get(++i);
            }
            Object def = DEFAULTS.get(name);
            m.put(name, convert(name, value, def));
        }
        return fromMap(m);
    }

    private static Object convert(String name, String value, Object def) {
        try {
            if (def instanceof Duration) {
                return parseDuration(value);
            }
            if (def instanceof Integer) {
                return Integer.parseInt(value.replace("_", ""));
            }
            if (def instanceof Long) {
                return Long.parseLong(value.replace("_", ""));
            }
            if (def instanceof Double) {
                return Double.parseDouble(value);
            }
            return value;
        } catch (IllegalArgumentException | DateTimeParseException e) {
            String form = def instanceof Duration ? "a duration such as 500ms, 2s, 5m, 1h or PT0.5S"
                : def instanceof Double ? "a number" : "an integer";
            throw new IllegalArgumentException("--" + name + ": '" + value + "' is not " + form, e);
        }
    }

    /**
     * These settings as {@code --name=value} arguments, one for each setting that has a value, which {@link #parse} turns
     * back into an equal value: durations in whole milliseconds as {@code <n>ms}, others in ISO-8601.
     */
    public List<String> toArguments() {
        List<String> args = new ArrayList<>();
        asMap().forEach((name, value) -> {
            if (value != null) {
                args.add("--" + name + "=" + (value instanceof Duration d ? formatDuration(d) : value));
            }
        });
        return args;
    }

    private static String formatDuration(Duration d) {
        return d.getNano() % 1_000_000 == 0 ? d.toMillis() + "ms" : d.toString(); // toNanos() overflows past 292 years
    }

    /**
     * {@code 500ms}, {@code 2s}, {@code 5m}, {@code 1h}, {@code 1d}; a bare number is milliseconds; ISO-8601
     * ({@code PT0.25S}) as well.
     */
    public static Duration parseDuration(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        if (t.startsWith("p")) {
            return Duration.parse(t);
        }
        String[][] units = {{"ms", "1"}, {"s", "1000"}, {"m", "60000"}, {"h", "3600000"}, {"d", "86400000"}};
        for (String[] u : units) {
            if (t.endsWith(u[0]) && !(u[0].equals("s") && t.endsWith("ms"))) {
                String n = t.substring(0, t.length() - u[0].length()).trim();
                if (!n.matches("-?\\d{1,18}(\\.\\d{1,9})?")) { // Double.parseDouble would take "5d" of "5ds" as 5
                    throw new NumberFormatException("not a number of " + u[0] + ": " + n);
                }
                return Duration.ofMillis(Math.round(Double.parseDouble(n) * Long.parseLong(u[1])));
            }
        }
        return Duration.ofMillis(Long.parseLong(t));
    }

    /** Every flag with what it does and its default, for {@code --help} ({@link JobUsage}). */
    public static String usage() {
        return JobUsage.render(DEFAULTS);
    }

    /**
     * Settings that run but are likely a mistake, one line each, for the job to log at start (empty when none). Not
     * refused: a benchmark's pre-filled backlog, stamped up to 50 min ahead on purpose, runs with a skew over the grace.
     */
    public List<String> warnings() {
        List<String> out = new ArrayList<>();
        // A record within the skew moves event time by as much (the other partitions idle): one as far ahead as the
        // grace expires every completion waiting for its decision.
        if (maxFutureSkew.compareTo(completionGrace) >= 0) {
            out.add("--max-future-skew " + maxFutureSkew + " is not below --completion-grace " + completionGrace
                + ": one record stamped that far ahead, with the other partitions idle, expires every completion "
                + "waiting for its decision");
        }
        return out;
    }

    private static void require(boolean ok, String flag, String what) {
        if (!ok) {
            throw new IllegalArgumentException("--" + flag + " " + what);
        }
    }

    /** Whether snapshots and forests run on event-time ticks (the deterministic mode). */
    public boolean eventClock() {
        return EVENT_CLOCK.equals(cadenceClock);
    }

    private static void positive(String flag, Duration d) {
        require(d != null && !d.isNegative() && !d.isZero(), flag, "must be a positive duration, got " + d);
        atMostMax(flag, d);
    }

    /**
     * Durations are added to event times and deadlines in ms: one near {@code Long.MAX_VALUE} ms wrapped them negative
     * (every record "in the future", every join side expired at once), so none may pass {@link #MAX_DURATION}.
     */
    private static void atMostMax(String flag, Duration d) {
        require(d.compareTo(MAX_DURATION) <= 0, flag, "must be at most " + MAX_DURATION.toDays() + " days, got "
            + formatDuration(d));
    }

}
