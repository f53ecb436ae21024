package io.tierroute.jobs;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The fitting job's {@code --help}: every flag of {@link JobSettings} with what it does and its default, in the
 * record's order. A flag's line starts {@code "  --name "} (what {@code tierroute submit} edits and matches);
 * a long description continues on indented lines.
 */
final class JobUsage {

    private JobUsage() {}

    private static final int WIDTH = 118;
    private static final String INDENT = " ".repeat(31);

    /** One line of help per flag, in {@link JobSettings}' order; {@link #render} refuses a flag left out. */
    private static final Map<String, String> WHAT = descriptions();

    private static Map<String, String> descriptions() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("bootstrap-servers", "Kafka bootstrap.servers of every source and sink");
        m.put("kafka-properties", "Java properties file of Kafka client settings for a secured broker (security.protocol, "
                + "sasl.*, ssl.*), read where the job's main runs");
        m.put("job-name", "Flink job name; also the snapshots' producer and the dead letters' consumer");
        m.put("group-id", "Kafka consumer group of the sources (offsets committed on checkpoints)");
        m.put("transactional-id-prefix", "prefix of the exactly-once params sink's transactional ids");
        m.put("parallelism", "default parallelism of the job");
        m.put("checkpoint-interval", "exactly-once checkpoint interval; a snapshot is live once the checkpoint after "
                + "its publish commits");
        m.put("checkpoint-dir", "checkpoint storage URI (e.g. file:///var/flink/ckpt); none: the cluster's own");
        m.put("state-backend", "hashmap or rocksdb (RocksDB comes with the Flink distribution)");
        m.put("publish-interval", "snapshot cadence per scope (a scope with no new input publishes nothing)");
        m.put("forest-interval", "how often the output-length forest is retrained on the recent sample");
        m.put("decision-timeout", "how long a decision waits for its completion (event time)");
        m.put("completion-grace", "how long a completion waits for its decision (event time)");
        m.put("out-of-orderness", "bounded out-of-orderness of the watermarks");
        m.put("idleness", "a source partition without records this long stops holding the watermark back");
        m.put("max-watermark-drift", "how far in event time a source may run ahead of the slowest (0: no alignment)");
        m.put("state-ttl", "running time (wall clock without downtime) a join side waits when the watermark stalls; then "
            + "counted as unmatched and removed; at least --decision-timeout and --completion-grace");
        m.put("max-future-skew", "event times further than this past the wall clock are dead letters; a record within it "
            + "moves event time by as much: keep it below --completion-grace (the job warns at start otherwise)");
        m.put("scopes", "a regular expression the scopes this job fits match in whole; records of any other scope are "
                + "dead letters (none: every scope; each scope keeps state for good, so name them where producers "
                + "could put ids in scope)");
        m.put("transaction-timeout", "Kafka transaction timeout of the params sink (longer than a checkpoint interval)");
        m.put("sample-rows", "joined rows kept per scope: the forest's training sample and the replay on restore");
        m.put("telemetry-replay-rows", "telemetry samples kept per scope for the replay on restore");
        m.put("history-versions", "accepted snapshots per scope kept to gate against (e.g. a pinned one)");
        m.put("regression-horizon-rows", "rows after which an old row keeps 1 % of its weight in the regression");
        m.put("regression-refit-rows", "rows between the regression's re-solves of its Q_slack candidates");
        m.put("min-fit-samples", "an estimator with fewer samples publishes no value (the last one is carried)");
        m.put("min-forest-rows", "joined rows needed before the forest is first trained");
        m.put("forest-trees", "trees of the quantile forest");
        m.put("forest-max-bytes", "size budget of the forest in bytes (the snapshot must fit one Kafka record)");
        m.put("gate-min-samples", "validation gate: a fitted value from fewer rows is rejected (the one in force kept)");
        m.put("gate-min-r2", "validation gate: a value from a regression of lower R² is rejected");
        m.put("gate-max-jump-factor", "validation gate: a value more than this factor from the one in force is rejected, "
                + "unless the evidence for it is overwhelming");
        m.put("cadence-clock", "processing (wall-clock timers) or event (deterministic event-time ticks; see the README)");
        m.put("fail-after-inputs", "for tests only: a fitting subtask fails after this many inputs past its first "
                + "checkpoint, in its first attempt (0: off)");
        return m;
    }

    /** The help text for {@code defaults} (flag → default value, null for none), in its order. */
    static String render(Map<String, Object> defaults) {
        StringBuilder b = new StringBuilder("tierroute fitting job; flags (--name value or --name=value):\n");
        defaults.forEach((flag, value) -> {
            String what = WHAT.get(flag);
            if (what == null) {
                throw new IllegalStateException("--" + flag + " has no help line in JobUsage");
            }
            String text = what + " (default " + (value == null ? "none" : value) + ")";
            b.append(String.format("  --%-26s ", flag));
            int column = INDENT.length();
            for (String word : text.split(" ")) {
                if (column > INDENT.length() && column + 1 + word.length() > WIDTH) {
                    b.append('\n').append(INDENT);
                    column = INDENT.length();
                } else if (column > INDENT.length()) {
                    b.append(' ');
                    column++;
                }
                b.append(word);
                column += word.length();
            }
            b.append('\n');
        });
        return b.toString();
    }
}
