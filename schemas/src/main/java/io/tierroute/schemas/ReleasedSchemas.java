package io.tierroute.schemas;

import io.tierroute.schemas.avro.CompletionLog;
import io.tierroute.schemas.avro.DeadLetter;
import io.tierroute.schemas.avro.ReplicaSyncMessage;
import io.tierroute.schemas.avro.EngineTelemetry;
import io.tierroute.schemas.avro.KvEventBatch;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.avro.RoutingDecision;
import io.tierroute.schemas.avro.SnapshotControl;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * The committed copies of every released writer schema, on the classpath under
 * {@code released/<RecordName>/v<N>.avsc} (N = 1, 2, ... without gaps), each self-contained
 * (all named types inlined). A reader decodes records written with any of them.
 */
public final class ReleasedSchemas {
  /** Classpath folder (and folder under {@code src/main/resources}) of the released copies. */
  public static final String RESOURCE_ROOT = "released";

  /** The top-level record types that travel on a topic, i.e. the ones that get released. */
  public static final List<Class<? extends SpecificRecord>> RECORD_TYPES = List.of(
      KvEventBatch.class,
      EngineTelemetry.class,
      CompletionLog.class,
      RoutingDecision.class,
      ParameterSnapshot.class,
      SnapshotControl.class,
      DeadLetter.class,
      ReplicaSyncMessage.class);

  /**
   * Records stored outside a topic (a quantile forest written to a model file, e.g. the selector's
   * {@code parameters.outputModel}), released like the topic records so that an old file still decodes.
   */
  public static final List<Class<? extends SpecificRecord>> MODEL_TYPES = List.of(QuantileForestModel.class);

  /** Every released record type: {@link #RECORD_TYPES} then {@link #MODEL_TYPES}. */
  public static final List<Class<? extends SpecificRecord>> RELEASED_TYPES = concat(RECORD_TYPES, MODEL_TYPES);

  private ReleasedSchemas() {}

  private static List<Class<? extends SpecificRecord>> concat(List<Class<? extends SpecificRecord>> a,
      List<Class<? extends SpecificRecord>> b) {
    List<Class<? extends SpecificRecord>> all = new ArrayList<>(a);
    all.addAll(b);
    return List.copyOf(all);
  }

  /** Classpath resource name of version {@code version} of {@code recordName}. */
  public static String resourceName(String recordName, int version) {
    return RESOURCE_ROOT + "/" + recordName + "/v" + version + ".avsc";
  }

  /** The current (compiled-in) schema of a generated record class. */
  public static Schema currentSchema(Class<? extends SpecificRecord> type) {
    return new SpecificData(type.getClassLoader()).getSchema(type);
  }

  /**
   * Released schemas of {@code recordName}, index 0 = v1, read from the class loader of this
   * class; empty if none is released.
   */
  public static List<Schema> load(String recordName) {
    return load(recordName, ReleasedSchemas.class.getClassLoader());
  }

  /** As {@link #load(String)} with an explicit class loader. */
  public static List<Schema> load(String recordName, ClassLoader loader) {
    List<Schema> out = new ArrayList<>();
    for (int v = 1; ; v++) {
      String resource = resourceName(recordName, v);
      try (InputStream in = loader.getResourceAsStream(resource)) {
        if (in == null) {
          return out;
        }
        String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        out.add(parse(json, resource));
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read " + resource, e);
      }
    }
  }

  /** Parses one self-contained schema with a fresh parser. */
  static Schema parse(String json, String what) {
    try {
      return new Schema.Parser().parse(json);
    } catch (RuntimeException e) {
      throw new IllegalStateException("Released schema " + what + " does not parse: " + e.getMessage(), e);
    }
  }
}
