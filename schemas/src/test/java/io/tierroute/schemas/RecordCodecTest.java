package io.tierroute.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierroute.schemas.avro.CompletionLog;
import io.tierroute.schemas.avro.EngineTelemetry;
import io.tierroute.schemas.avro.KvEventBatch;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QuantileForestModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

class RecordCodecTest {

  @SuppressWarnings("unchecked")
  private static <T extends SpecificRecord> RecordCodec<T> codecOf(T record) {
    return Codecs.forType((Class<T>) record.getClass());
  }

  @Test
  void everyRecordTypeRoundTrips() {
    List<SpecificRecord> samples = new ArrayList<>(Samples.all());
    samples.add(Samples.failedCompletion());
    for (SpecificRecord r : samples) {
      RecordCodec<SpecificRecord> codec = codecOf(r);
      byte[] bytes = codec.encode(r);
      assertThat(bytes[0]).isEqualTo((byte) 0xC3);
      assertThat(bytes[1]).isEqualTo((byte) 0x01);
      assertThat(RecordCodec.peekFingerprint(bytes)).hasValue(codec.fingerprint());
      SpecificRecord back = codec.decode(bytes);
      assertThat(back).as(r.getClass().getSimpleName()).isEqualTo(r);
      assertThat(codec.encode(back)).isEqualTo(bytes);
    }
  }

  @Test
  void everyCodecHasASample() {
    List<Object> sampleTypes = Samples.all().stream().map(r -> (Object) r.getClass()).distinct().toList();
    List<Object> codecTypes = Codecs.ALL.stream().map(c -> (Object) c.recordType()).toList();
    assertThat(sampleTypes).containsExactlyInAnyOrderElementsOf(new ArrayList<Object>(ReleasedSchemas.RECORD_TYPES));
    assertThat(codecTypes).containsExactlyElementsOf(new ArrayList<Object>(ReleasedSchemas.RECORD_TYPES));
  }

  @Test
  void valuesSurviveExactly() {
    KvEventBatch back = Codecs.KV_EVENT_BATCH.decode(Codecs.KV_EVENT_BATCH.encode(Samples.kvEventBatch()));
    assertThat(back.getLora()).isEqualTo("sql-agent-v2");
    assertThat(back.getNamespace()).isNull();
    assertThat(back.getEvents()).hasSize(6);
    assertThat(back.getEvents().get(1).toString()).contains(Long.toString(Long.MIN_VALUE));

    CompletionLog failed = Codecs.COMPLETION_LOG.decode(Codecs.COMPLETION_LOG.encode(Samples.failedCompletion()));
    assertThat(failed.getTtftUs()).isNull();
    assertThat(failed.getFirstTokenTimeMs()).isNull();

    ParameterSnapshot s = Codecs.PARAMETER_SNAPSHOT.decode(Codecs.PARAMETER_SNAPSHOT.encode(Samples.parameterSnapshot(true)));
    assertThat(s.getLambda().getValue()).isEqualTo(1.0 / 120);
    assertThat(s.getQuantileModel().getLeafSamples()).startsWith(12f, 40f, 96f);
  }

  @Test
  void aNanDoubleSurvivesBitForBitThoughRecordEqualsDisagrees() {
    // Found by SingleObjectDecodeFuzzTest in CI: one flipped exponent byte made alphaHo a NaN. The
    // codec carries it exactly (gates downstream reject it); Avro's equals() calls NaN != NaN.
    ParameterSnapshot snapshot = Samples.parameterSnapshot(false);
    snapshot.getAlphaHo().setValue(Double.NaN);
    byte[] bytes = Codecs.PARAMETER_SNAPSHOT.encode(snapshot);
    ParameterSnapshot back = Codecs.PARAMETER_SNAPSHOT.decode(bytes);
    assertThat(back.getAlphaHo().getValue()).isNaN();
    assertThat(Codecs.PARAMETER_SNAPSHOT.encode(back)).isEqualTo(bytes);
    assertThat(back).isNotEqualTo(snapshot);
  }

  @Test
  void bytesAreStandardSingleObjectEncoding() throws java.io.IOException {
    // Avro's own decoder reads what the codec writes, and the codec reads what Avro's encoder writes.
    EngineTelemetry t = Samples.engineTelemetry();
    BinaryMessageDecoder<EngineTelemetry> avroDecoder =
        new BinaryMessageDecoder<>(SpecificData.get(), EngineTelemetry.getClassSchema(), Codecs.ENGINE_TELEMETRY.schemaStore());
    assertThat(avroDecoder.decode(Codecs.ENGINE_TELEMETRY.encode(t))).isEqualTo(t);
    byte[] avroBytes = new BinaryMessageEncoder<EngineTelemetry>(SpecificData.get(), EngineTelemetry.getClassSchema())
        .encode(t).array();
    assertThat(Codecs.ENGINE_TELEMETRY.decode(avroBytes)).isEqualTo(t);
  }

  @Test
  void quantileForestFor50kRowsFitsInOneMiB() {
    QuantileForestModel forest = Samples.bigForest(new Random(7));
    ParameterSnapshot s = ParameterSnapshot.newBuilder(Samples.parameterSnapshot(true)).setQuantileModel(forest).build();
    byte[] bytes = Codecs.PARAMETER_SNAPSHOT.encode(s);
    System.out.printf("ParameterSnapshot with 50x256-leaf forest, k=8: %,d bytes%n", bytes.length);
    assertThat(bytes.length).isLessThanOrEqualTo(1 << 20);
    assertThat(Codecs.PARAMETER_SNAPSHOT.decode(bytes).getQuantileModel()).isEqualTo(forest);
  }

  @Test
  void encodingAnIncompleteRecordFailsClearly() {
    KvEventBatch broken = Samples.kvEventBatch();
    broken.setWorker(null);
    assertThatThrownBy(() -> Codecs.KV_EVENT_BATCH.encode(broken))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("KvEventBatch");
  }

  @Test
  void codecsAreSafeToShareAcrossThreads() throws Exception {
    List<SpecificRecord> samples = Samples.all();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> futures = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        futures.add(pool.submit(() -> {
          int n = 0;
          for (int i = 0; i < 2_000; i++) {
            SpecificRecord r = samples.get(i % samples.size());
            RecordCodec<SpecificRecord> codec = codecOf(r);
            if (codec.decode(codec.encode(r)).equals(r)) {
              n++;
            }
          }
          return n;
        }));
      }
      for (Future<Integer> f : futures) {
        assertThat(f.get()).isEqualTo(2_000);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void codecsByTopic() {
    assertThat(Codecs.forTopic(Topics.KV_EVENTS)).isSameAs(Codecs.KV_EVENT_BATCH);
    assertThat(Codecs.forTopic(Topics.PARAMS)).isSameAs(Codecs.PARAMETER_SNAPSHOT);
    for (String topic : Topics.ALL) {
      assertThat(Codecs.forTopic(topic)).isNotNull();
    }
    assertThatThrownBy(() -> Codecs.forTopic("tierroute.nope")).isInstanceOf(IllegalArgumentException.class);
  }
}
