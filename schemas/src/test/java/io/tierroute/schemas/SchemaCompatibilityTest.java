package io.tierroute.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierroute.schemas.avro.SnapshotControl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every released writer schema stays readable by the current classes. */
class SchemaCompatibilityTest {

  @Test
  void everyRecordTypeHasReleasedVersions() {
    for (Class<? extends SpecificRecord> type : ReleasedSchemas.RELEASED_TYPES) {
      assertThat(ReleasedSchemas.load(type.getSimpleName())).as(type.getSimpleName()).isNotEmpty();
    }
  }

  @Test
  void currentSchemaReadsEveryReleasedVersion() {
    for (Class<? extends SpecificRecord> type : ReleasedSchemas.RELEASED_TYPES) {
      Schema current = ReleasedSchemas.currentSchema(type);
      List<Schema> released = ReleasedSchemas.load(type.getSimpleName());
      for (int i = 0; i < released.size(); i++) {
        SchemaCompatibility.SchemaPairCompatibility c =
            SchemaCompatibility.checkReaderWriterCompatibility(current, released.get(i));
        assertThat(c.getType()).as("%s reads released v%d: %s", type.getSimpleName(), i + 1, c.getDescription())
            .isEqualTo(SchemaCompatibilityType.COMPATIBLE);
      }
    }
  }

  /** A schema change must ship with its released copy (see README, "Releasing a new version"). */
  @Test
  void currentSchemaIsTheLatestRelease() {
    for (Class<? extends SpecificRecord> type : ReleasedSchemas.RELEASED_TYPES) {
      List<Schema> released = ReleasedSchemas.load(type.getSimpleName());
      Schema latest = released.get(released.size() - 1);
      assertThat(SchemaNormalization.parsingFingerprint64(latest))
          .as("%s changed since released v%d: release it with "
              + "`mvn -B -q -pl schemas clean compile exec:java -Dexec.mainClass=io.tierroute.schemas.SchemaReleaser -Dexec.args=schemas/src/main/resources/released`",
              type.getSimpleName(), released.size())
          .isEqualTo(SchemaNormalization.parsingFingerprint64(ReleasedSchemas.currentSchema(type)));
    }
  }

  /** Data written with each released writer schema decodes into the current class, field for field. */
  @Test
  void roundTripThroughEveryReleasedWriterSchema() throws IOException {
    Random rnd = new Random(42);
    for (RecordCodec<?> codec : Codecs.ALL) {
      List<Schema> released = ReleasedSchemas.load(codec.recordName());
      for (int v = 0; v < released.size(); v++) {
        Schema writer = released.get(v);
        for (int n = 0; n < 50; n++) {
          GenericRecord written = RandomGeneric.record(writer, rnd);
          byte[] bytes = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), writer).encode(written).array();
          SpecificRecord decoded = codec.decode(bytes);
          // What Avro's schema resolution says the current schema sees, as generic data:
          GenericRecord expected = new GenericDatumReader<GenericRecord>(writer, codec.schema())
              .read(null, DecoderFactory.get().binaryDecoder(bytes, 10, bytes.length - 10, null));
          assertThat(decoded.toString()).as("%s v%d", codec.recordName(), v + 1).isEqualTo(expected.toString());
        }
      }
    }
  }

  /** The check does catch an incompatible change. */
  @Test
  void anIncompatibleChangeIsDetected() {
    Schema current = SnapshotControl.getClassSchema();
    // v1 of the variant: as released; v2: a new required field with no default (old data lacks it)
    String json = current.toString().replace("\"fields\":[",
        "\"fields\":[{\"name\":\"ticket\",\"type\":\"string\",\"doc\":\"Change ticket.\"},");
    Schema withRequiredField = new Schema.Parser().parse(json);
    assertThat(SchemaCompatibility.checkReaderWriterCompatibility(withRequiredField, current).getType())
        .isEqualTo(SchemaCompatibilityType.INCOMPATIBLE);

    // Changing a field's type (long -> string) breaks reading old data too.
    Schema retyped = new Schema.Parser().parse(current.toString()
        .replace("{\"name\":\"sequence\",\"type\":\"long\"", "{\"name\":\"sequence\",\"type\":\"string\""));
    assertThat(SchemaCompatibility.checkReaderWriterCompatibility(current, retyped).getType())
        .isEqualTo(SchemaCompatibilityType.INCOMPATIBLE);
    // ... and the codec refuses to start with such a "released" writer schema.
    assertThatThrownBy(() -> RecordCodec.of(SnapshotControl.class, List.of(retyped)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot read released v1");
  }

  /** A compatible change: an older writer without a field that now has a default. */
  @Test
  void aCompatibleOlderWriterIsResolved() {
    Schema current = SnapshotControl.getClassSchema();
    // Pretend v1 had no "version" field (the current one has default null).
    Schema older = new Schema.Parser().parse(current.toString().replaceAll(
        "\\{\"name\":\"version\",\"type\":\\[\"null\",\"long\"\\],\"doc\":\"[^\"]*\",\"default\":null\\},", ""));
    assertThat(older.getField("version")).isNull();
    RecordCodec<SnapshotControl> codec = RecordCodec.of(SnapshotControl.class, List.of(older));
    GenericRecord old = new GenericData.Record(older);
    old.put("scope", "default");
    old.put("action", new GenericData.EnumSymbol(older.getField("action").schema(), "UNPIN"));
    old.put("reason", "done");
    old.put("actor", "bob");
    old.put("timestampMs", 5L);
    old.put("sequence", 3L);
    byte[] bytes;
    try {
      bytes = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), older).encode(old).array();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    SnapshotControl back = codec.decode(bytes);
    assertThat(back.getVersion()).isNull();
    assertThat(back.getSequence()).isEqualTo(3L);
    assertThat(codec.writerSchemas()).hasSize(2);
    // The shared codec, which knows only released versions, does not know this writer.
    assertThatThrownBy(() -> Codecs.SNAPSHOT_CONTROL.decode(bytes)).isInstanceOf(UnknownSchemaException.class);
  }

  @Test
  void releaserWritesOnlyUnreleasedSchemas(@TempDir Path dir) throws IOException {
    List<Path> first = SchemaReleaser.release(dir);
    assertThat(first).hasSize(ReleasedSchemas.RELEASED_TYPES.size());
    assertThat(first).allSatisfy(p -> assertThat(p.getFileName().toString()).isEqualTo("v1.avsc"));
    Path kv = dir.resolve("KvEventBatch/v1.avsc");
    Schema written = new Schema.Parser().parse(Files.readString(kv));
    assertThat(written).isEqualTo(ReleasedSchemas.currentSchema(io.tierroute.schemas.avro.KvEventBatch.class));
    assertThat(SchemaReleaser.release(dir)).isEmpty();
  }
}
