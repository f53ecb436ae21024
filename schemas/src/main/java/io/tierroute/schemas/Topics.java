package io.tierroute.schemas;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Kafka topic names of DESIGN.md section 1 and which of them are compacted. */
public final class Topics {
  /** {@code KvEventBatch}, key = worker. */
  public static final String KV_EVENTS = "tierroute.kv-events";
  /** {@code EngineTelemetry}, key = worker. */
  public static final String TELEMETRY = "tierroute.telemetry";
  /** {@code CompletionLog}, key = requestId. */
  public static final String COMPLETIONS = "tierroute.completions";
  /** {@code RoutingDecision}, key = requestId. */
  public static final String DECISIONS = "tierroute.decisions";
  /**
   * {@code ParameterSnapshot}, key = {@link #paramsKey}(scope, version); compacted. One key per
   * version, so compaction keeps every version (the history dashboards and rollback read) and only
   * drops a version's key when its producer deletes it with a tombstone.
   */
  public static final String PARAMS = "tierroute.params";
  /**
   * {@code SnapshotControl}, key = {@link #controlKey}(scope, sequence); compacted. One key per write, so
   * compaction keeps every pin, unpin and rollback with its actor and reason (the audit trail dashboards
   * and {@code snapshots} show); readers apply the records in order, the last of a scope wins. Records
   * written before 2026-12-02 are keyed by scope alone: compaction keeps the last of those per scope.
   */
  public static final String CONTROL = "tierroute.control";
  /** {@code DeadLetter}: records a consumer rejected, with the reason. */
  public static final String DEAD_LETTER = "tierroute.dead-letter";
  /**
   * {@code ReplicaSyncMessage}, key = requestId: what each selector replica tells the others (its admissions and the
   * request events reported to it). Read by every replica from (about) its start; kept an hour.
   */
  public static final String REPLICA_SYNC = "tierroute.replica-sync";

  /** Every topic, in data-flow order. */
  public static final List<String> ALL =
      List.of(KV_EVENTS, TELEMETRY, COMPLETIONS, DECISIONS, PARAMS, CONTROL, DEAD_LETTER, REPLICA_SYNC);

  /** Topics with {@code cleanup.policy=compact}. */
  public static final Set<String> COMPACTED = Set.of(PARAMS, CONTROL);

  /** How each topic is created: partitions and topic-level settings. */
  public record Spec(String name, int partitions, Map<String, String> configs) {}

  /**
   * Topic definitions for a single-cluster deployment. The parameter and control topics have one
   * partition so that a reader sees every scope's snapshots and control records in the order their
   * single writer produced them.
   */
  public static List<Spec> specs() {
    Map<String, String> compact = Map.of("cleanup.policy", "compact",
        "min.cleanable.dirty.ratio", "0.1", "segment.ms", "600000");
    return List.of(
        new Spec(KV_EVENTS, 4, retained(KV_EVENTS_RETENTION)),
        new Spec(TELEMETRY, 4, retained(INPUT_RETENTION)),
        new Spec(COMPLETIONS, 4, retained(INPUT_RETENTION)),
        new Spec(DECISIONS, 4, retained(INPUT_RETENTION)),
        new Spec(PARAMS, 1, paramsConfigs(compact)),
        new Spec(CONTROL, 1, compact),
        new Spec(DEAD_LETTER, 1, retained(DEAD_LETTER_RETENTION)),
        new Spec(REPLICA_SYNC, 4, replicaSyncConfigs()));
  }

  /**
   * The largest params record the broker takes: above the fitting job's 4 MiB producer cap, so a snapshot carrying a
   * forest is never refused by a broker left at its ~1 MB default (that refusal failed every publish and restarted the
   * job in a loop).
   */
  public static final int PARAMS_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

  private static Map<String, String> paramsConfigs(Map<String, String> compact) {
    Map<String, String> m = new java.util.HashMap<>(compact);
    m.put("max.message.bytes", Integer.toString(PARAMS_MAX_MESSAGE_BYTES));
    return Map.copyOf(m);
  }

  /**
   * The fitting job's inputs are kept 7 days: a job restored from a checkpoint or savepoint of up to
   * a week ago still finds the records it had not read.
   */
  public static final Duration INPUT_RETENTION = Duration.ofDays(7);
  /** KV events only matter while the blocks they name may still be cached: a day is plenty. */
  public static final Duration KV_EVENTS_RETENTION = Duration.ofDays(1);
  /** Rejected records wait two weeks for someone to look at them. */
  public static final Duration DEAD_LETTER_RETENTION = Duration.ofDays(14);
  /**
   * Replica sync matters while its requests run: a replica reads back a few minutes at its start. An hour, in segments
   * of ten minutes (retention deletes whole segments; the broker's default segment is a week), bounds a topic that
   * carries every request's events.
   */
  public static final Duration REPLICA_SYNC_RETENTION = Duration.ofHours(1);

  private static Map<String, String> replicaSyncConfigs() {
    Map<String, String> m = new java.util.HashMap<>(retained(REPLICA_SYNC_RETENTION));
    m.put("segment.ms", Long.toString(Duration.ofMinutes(10).toMillis()));
    return Map.copyOf(m);
  }

  /** Delete policy with an explicit retention, so a broker's own default cannot change it. */
  private static Map<String, String> retained(Duration retention) {
    return Map.of("cleanup.policy", "delete", "retention.ms", Long.toString(retention.toMillis()));
  }

  /** Key of a snapshot on {@link #PARAMS}: {@code scope#version}, the version zero-padded to 19 digits. */
  public static String paramsKey(String scope, long version) {
    if (version < 0) {
      throw new IllegalArgumentException("snapshot version must be >= 0, got " + version);
    }
    return scopedKey(scope, version);
  }

  /** A {@link #PARAMS} key read back: the scope and the version (at least 1). */
  public record ParamsKey(String scope, long version) {
    /** {@code key} as {@code scope#version}, or null when it names no version of at least 1 (or is null). */
    public static ParamsKey parse(byte[] key) {
      String k = key == null ? "" : new String(key, java.nio.charset.StandardCharsets.UTF_8);
      int hash = k.lastIndexOf('#');
      try {
        long v = hash < 0 ? -1 : Long.parseLong(k.substring(hash + 1));
        return v < 1 ? null : new ParamsKey(k.substring(0, hash), v);
      } catch (NumberFormatException e) {
        return null;
      }
    }
  }

  /** Key of a control record on {@link #CONTROL}: {@code scope#sequence}, the sequence zero-padded to 19 digits. */
  public static String controlKey(String scope, long sequence) {
    if (sequence < 1) {
      throw new IllegalArgumentException("control sequence must be >= 1, got " + sequence);
    }
    return scopedKey(scope, sequence);
  }

  /** {@code scope#n}, n zero-padded to 19 digits so that a scope's keys sort by n. */
  private static String scopedKey(String scope, long n) {
    return scope + "#" + String.format("%019d", n);
  }

  private Topics() {}

  /** Whether {@code topic} is one of {@link #COMPACTED}. */
  public static boolean isCompacted(String topic) {
    return COMPACTED.contains(topic);
  }
}
