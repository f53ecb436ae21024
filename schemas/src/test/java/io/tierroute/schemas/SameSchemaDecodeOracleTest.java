package io.tierroute.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierroute.schemas.avro.CompletionLog;
import io.tierroute.schemas.avro.EngineTelemetry;
import io.tierroute.schemas.avro.RoutingDecision;
import java.io.IOException;
import java.util.List;
import java.util.Random;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.SameSchemaDecoder;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/**
 * The reusing decoder's grammar-free path ({@link SameSchemaDecoder}, writer schema = reader schema) against
 * Avro's reference {@link SpecificDatumReader} as the oracle, on random records (nulls and values in every
 * union, arrays of 0–3 entries, every enum symbol); records of an older writer schema still take the resolving
 * path; a union index the schema does not have is rejected as on the resolving path.
 */
class SameSchemaDecodeOracleTest {
  static {
    AvroTrust.install(); // before the first generated record is built here
  }

  private static final List<RecordCodec<?>> INPUTS =
      List.of(Codecs.ROUTING_DECISION, Codecs.COMPLETION_LOG, Codecs.ENGINE_TELEMETRY);

  @Test
  void theFittingJobsInputTypesTakeTheDirectPath() {
    for (RecordCodec<?> codec : INPUTS) {
      assertThat(codec.reusingDecoder().decodesDirectly()).as(codec.recordName()).isTrue();
    }
    assertThat(SameSchemaDecoder.unionWidth(CompletionLog.getClassSchema())).isEqualTo(2);
    assertThat(SameSchemaDecoder.unionWidth(RoutingDecision.getClassSchema())).isEqualTo(2);
    assertThat(SameSchemaDecoder.unionWidth(EngineTelemetry.getClassSchema())).isZero();
  }

  @Test
  void unionsOfDifferentWidthsAreNotDecodedDirectly() {
    Schema mixed = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Mixed\",\"fields\":["
        + "{\"name\":\"a\",\"type\":[\"null\",\"long\"]},{\"name\":\"b\",\"type\":[\"null\",\"long\",\"string\"]}]}");
    assertThat(SameSchemaDecoder.unionWidth(mixed)).isEqualTo(-1);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  @Test
  void randomRecordsOfTheCurrentSchemaDecodeAsAvrosReferenceReader() throws IOException {
    Random rnd = new Random(7);
    for (RecordCodec codec : INPUTS) {
      ReusingDecoder reusing = codec.reusingDecoder();
      SpecificDatumReader oracle = new SpecificDatumReader(codec.schema(), codec.schema(), new SpecificData());
      Object reused = null;
      for (int n = 0; n < 2_000; n++) {
        byte[] bytes = encode(codec.schema(), RandomGeneric.record(codec.schema(), rnd));
        SpecificRecord expected = (SpecificRecord) oracle.read(null,
            DecoderFactory.get().binaryDecoder(bytes, 10, bytes.length - 10, null));
        SpecificRecord got = reusing.decode(bytes);
        assertThat(got).as("%s #%d", codec.recordName(), n).isEqualTo(expected);
        assertThat(got.toString()).isEqualTo(expected.toString());
        if (reused == null) {
          reused = got;
        }
        assertThat(got).as("the current schema decodes into the reused record").isSameAs(reused);
      }
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  @Test
  void recordsOfAnOlderWriterSchemaStillTakeTheResolvingPath() throws IOException {
    Random rnd = new Random(11);
    int olderSchemas = 0;
    for (RecordCodec codec : INPUTS) {
      ReusingDecoder reusing = codec.reusingDecoder();
      Object reused = reusing.decode(encode(codec.schema(), RandomGeneric.record(codec.schema(), rnd)));
      for (Schema writer : ReleasedSchemas.load(codec.recordName())) {
        if (SchemaNormalization.parsingFingerprint64(writer) == codec.fingerprint()) {
          continue;
        }
        olderSchemas++;
        SpecificDatumReader oracle = new SpecificDatumReader(writer, codec.schema(), new SpecificData());
        for (int n = 0; n < 300; n++) {
          byte[] bytes = encode(writer, RandomGeneric.record(writer, rnd));
          Object expected = oracle.read(null, DecoderFactory.get().binaryDecoder(bytes, 10, bytes.length - 10, null));
          SpecificRecord got = reusing.decode(bytes);
          assertThat(got).isEqualTo(expected).isNotSameAs(reused);
          // and the next current-schema record is right again
          byte[] current = encode(codec.schema(), RandomGeneric.record(codec.schema(), rnd));
          assertThat(reusing.decode(current)).isEqualTo(codec.decode(current)).isSameAs(reused);
        }
      }
    }
    assertThat(olderSchemas).as("RoutingDecision has a released v1 unlike the current schema").isPositive();
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  @Test
  void aUnionIndexTheSchemaDoesNotHaveIsRejectedAsOnTheResolvingPath() throws IOException {
    // Every body byte set to 2, 3, 4 (zig-zag varints of 1, -2, 2) in turn: where it is a union index, 2 and
    // -2 are out of range; the reference decode and the direct path must agree record by record.
    Random rnd = new Random(3);
    int rejected = 0;
    for (RecordCodec codec : List.of(Codecs.ROUTING_DECISION, Codecs.COMPLETION_LOG)) {
      ReusingDecoder reusing = codec.reusingDecoder();
      for (int n = 0; n < 20; n++) {
        byte[] bytes = encode(codec.schema(), RandomGeneric.record(codec.schema(), rnd));
        for (int at = RecordCodec.HEADER_LENGTH; at < bytes.length; at++) {
          for (byte value : new byte[] {2, 3, 4}) {
            byte[] changed = bytes.clone();
            changed[at] = value;
            ReusingDecoderTest.assertSameAsCodec(codec, reusing, changed);
            try {
              codec.decode(changed);
            } catch (RecordDecodeException e) {
              rejected++;
            }
          }
        }
      }
    }
    assertThat(rejected).isPositive();
    // One explicit case: CompletionLog's firstTokenTimeMs union (the 7th field) with index 2.
    CompletionLog c = CompletionLog.newBuilder(Samples.completionLog()).setFirstTokenTimeMs(null).build();
    byte[] ok = Codecs.COMPLETION_LOG.encode(c);
    CompletionLog probe = CompletionLog.newBuilder(c).setFirstTokenTimeMs(5L).build();
    byte[] other = Codecs.COMPLETION_LOG.encode(probe);
    int at = 0;
    while (ok[at] == other[at]) {
      at++; // the union index: 0 (null) in ok, 1 (long) in other
    }
    byte[] bad = ok.clone();
    bad[at] = 4; // index 2
    ReusingDecoder<CompletionLog> d = Codecs.COMPLETION_LOG.reusingDecoder();
    assertThatThrownBy(() -> Codecs.COMPLETION_LOG.decode(bad)).isInstanceOf(CorruptRecordException.class);
    assertThatThrownBy(() -> d.decode(bad)).isInstanceOf(CorruptRecordException.class)
        .hasMessageContaining("union index 2 out of range");
    assertThat(d.decode(ok)).isEqualTo(c);
  }

  private static byte[] encode(Schema writer, GenericRecord record) throws IOException {
    return new BinaryMessageEncoder<GenericRecord>(GenericData.get(), writer).encode(record).array();
  }
}
