package io.tierroute.schemas;

import io.tierroute.schemas.avro.CompletionLog;
import io.tierroute.schemas.avro.DeadLetter;
import io.tierroute.schemas.avro.EngineTelemetry;
import io.tierroute.schemas.avro.KvEventBatch;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.ReplicaSyncMessage;
import io.tierroute.schemas.avro.RoutingDecision;
import io.tierroute.schemas.avro.SnapshotControl;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;

/** One ready, thread-safe codec per record type that travels on a topic. */
public final class Codecs {
  static {
    AvroTrust.install();
  }

  /** {@link Topics#KV_EVENTS}. */
  public static final RecordCodec<KvEventBatch> KV_EVENT_BATCH = RecordCodec.of(KvEventBatch.class);
  /** {@link Topics#TELEMETRY}. */
  public static final RecordCodec<EngineTelemetry> ENGINE_TELEMETRY = RecordCodec.of(EngineTelemetry.class);
  /** {@link Topics#COMPLETIONS}. */
  public static final RecordCodec<CompletionLog> COMPLETION_LOG = RecordCodec.of(CompletionLog.class);
  /** {@link Topics#DECISIONS}. */
  public static final RecordCodec<RoutingDecision> ROUTING_DECISION = RecordCodec.of(RoutingDecision.class);
  /** {@link Topics#PARAMS}. */
  public static final RecordCodec<ParameterSnapshot> PARAMETER_SNAPSHOT = RecordCodec.of(ParameterSnapshot.class);
  /** {@link Topics#CONTROL}. */
  public static final RecordCodec<SnapshotControl> SNAPSHOT_CONTROL = RecordCodec.of(SnapshotControl.class);
  /** {@link Topics#DEAD_LETTER}. */
  public static final RecordCodec<DeadLetter> DEAD_LETTER = RecordCodec.of(DeadLetter.class);
  /** {@link Topics#REPLICA_SYNC}. */
  public static final RecordCodec<ReplicaSyncMessage> REPLICA_SYNC_MESSAGE = RecordCodec.of(ReplicaSyncMessage.class);

  /** All codecs, in {@link Topics#ALL} order. */
  public static final List<RecordCodec<?>> ALL = List.of(KV_EVENT_BATCH, ENGINE_TELEMETRY,
      COMPLETION_LOG, ROUTING_DECISION, PARAMETER_SNAPSHOT, SNAPSHOT_CONTROL, DEAD_LETTER, REPLICA_SYNC_MESSAGE);

  private static final Map<String, RecordCodec<?>> BY_TOPIC = Map.of(
      Topics.KV_EVENTS, KV_EVENT_BATCH,
      Topics.TELEMETRY, ENGINE_TELEMETRY,
      Topics.COMPLETIONS, COMPLETION_LOG,
      Topics.DECISIONS, ROUTING_DECISION,
      Topics.PARAMS, PARAMETER_SNAPSHOT,
      Topics.CONTROL, SNAPSHOT_CONTROL,
      Topics.DEAD_LETTER, DEAD_LETTER,
      Topics.REPLICA_SYNC, REPLICA_SYNC_MESSAGE);

  private Codecs() {}

  /** The codec of a record type; {@link IllegalArgumentException} if it has none. */
  @SuppressWarnings("unchecked")
  public static <T extends SpecificRecord> RecordCodec<T> forType(Class<T> type) {
    for (RecordCodec<?> c : ALL) {
      if (c.recordType() == type) {
        return (RecordCodec<T>) c;
      }
    }
    throw new IllegalArgumentException("No codec for " + type.getName() + "; codecs exist for "
        + ReleasedSchemas.RECORD_TYPES.stream().map(Class::getSimpleName).toList());
  }

  /** The codec of the records on {@code topic}; {@link IllegalArgumentException} if unknown. */
  public static RecordCodec<?> forTopic(String topic) {
    RecordCodec<?> c = BY_TOPIC.get(topic);
    if (c == null) {
      throw new IllegalArgumentException("Unknown topic " + topic + "; known: " + Topics.ALL);
    }
    return c;
  }
}
