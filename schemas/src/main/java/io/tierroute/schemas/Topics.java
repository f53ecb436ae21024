package io.tierroute.schemas;

import java.util.List;
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
  /** {@code ParameterSnapshot}; compacted. */
  public static final String PARAMS = "tierroute.params";
  /** {@code SnapshotControl}, key = scope; compacted. */
  public static final String CONTROL = "tierroute.control";
  /** {@code DeadLetter}: records a consumer rejected, with the reason. */
  public static final String DEAD_LETTER = "tierroute.dead-letter";

  /** Every topic, in data-flow order. */
  public static final List<String> ALL =
      List.of(KV_EVENTS, TELEMETRY, COMPLETIONS, DECISIONS, PARAMS, CONTROL, DEAD_LETTER);

  /** Topics with {@code cleanup.policy=compact}. */
  public static final Set<String> COMPACTED = Set.of(PARAMS, CONTROL);

  private Topics() {}

  /** Whether {@code topic} is one of {@link #COMPACTED}. */
  public static boolean isCompacted(String topic) {
    return COMPACTED.contains(topic);
  }
}
