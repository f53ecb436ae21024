package io.tierroute.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.tierroute.schemas.avro.KvEventBatch;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

class DecodeErrorsTest {

  private static final RecordCodec<KvEventBatch> KV = Codecs.KV_EVENT_BATCH;

  private static byte[] header(long fingerprint) {
    byte[] h = new byte[10];
    h[0] = (byte) 0xC3;
    h[1] = 0x01;
    for (int i = 0; i < 8; i++) {
      h[2 + i] = (byte) (fingerprint >>> (8 * i));
    }
    return h;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Test
  void unknownFingerprintNamesItAndTheRecordType() {
    byte[] bytes = KV.encode(Samples.kvEventBatch());
    long bogus = 0x0123456789abcdefL;
    byte[] forged = concat(header(bogus), Arrays.copyOfRange(bytes, 10, bytes.length));
    assertThatThrownBy(() -> KV.decode(forged))
        .isInstanceOf(UnknownSchemaException.class)
        .isInstanceOf(RecordDecodeException.class)
        .hasMessageContaining("0123456789abcdef")
        .hasMessageContaining("KvEventBatch")
        .hasMessageContaining(RecordCodec.toHex(KV.fingerprint()))
        .satisfies(e -> {
          UnknownSchemaException u = (UnknownSchemaException) e;
          assertThat(u.fingerprint()).isEqualTo(bogus);
          assertThat(u.fingerprintHex()).isEqualTo("0123456789abcdef");
          assertThat(u.recordType()).isEqualTo("KvEventBatch");
        });
  }

  @Test
  void aRecordOfAnotherTypeIsAnUnknownSchema() {
    byte[] telemetry = Codecs.ENGINE_TELEMETRY.encode(Samples.engineTelemetry());
    assertThatThrownBy(() -> KV.decode(telemetry))
        .isInstanceOf(UnknownSchemaException.class)
        .hasMessageContaining(RecordCodec.toHex(Codecs.ENGINE_TELEMETRY.fingerprint()));
  }

  @Test
  void badHeaders() {
    byte[] good = KV.encode(Samples.kvEventBatch());
    assertThatThrownBy(() -> KV.decode(null)).isInstanceOf(CorruptRecordException.class).hasMessageContaining("null");
    assertThatThrownBy(() -> KV.decode(new byte[0])).isInstanceOf(CorruptRecordException.class)
        .hasMessageContaining("truncated header: 0 bytes");
    assertThatThrownBy(() -> KV.decode(Arrays.copyOf(good, 7))).isInstanceOf(CorruptRecordException.class)
        .hasMessageContaining("KvEventBatch").hasMessageContaining("truncated header: 7 bytes");
    byte[] badMagic = good.clone();
    badMagic[0] = 0x4F;
    assertThatThrownBy(() -> KV.decode(badMagic)).isInstanceOf(CorruptRecordException.class)
        .hasMessageContaining("bad magic 0x4F 0x01");
    byte[] badVersion = good.clone();
    badVersion[1] = 0x02;
    assertThatThrownBy(() -> KV.decode(badVersion)).isInstanceOf(CorruptRecordException.class)
        .hasMessageContaining("bad magic 0xC3 0x02");
    assertThat(RecordCodec.peekFingerprint(badMagic)).isEmpty();
  }

  @Test
  void truncatedBody() {
    byte[] good = KV.encode(Samples.kvEventBatch());
    for (int len = 10; len < good.length; len++) {
      byte[] cut = Arrays.copyOf(good, len);
      assertThatThrownBy(() -> KV.decode(cut)).as("length %d", len)
          .isInstanceOf(CorruptRecordException.class)
          .hasMessageContaining("KvEventBatch")
          .hasMessageContaining("truncated body");
    }
  }

  @Test
  void trailingBytes() {
    byte[] good = KV.encode(Samples.kvEventBatch());
    assertThatThrownBy(() -> KV.decode(concat(good, new byte[] {0, 0, 7})))
        .isInstanceOf(CorruptRecordException.class)
        .hasMessageContaining("3 trailing bytes");
  }

  /** A body claiming a collection or string far larger than the record fails fast, without OOM. */
  @Test
  void hugeLengthsAreRejectedWithoutAllocating() throws IOException {
    // Array count of ~1 billion events in a 20-byte body.
    assertThatThrownBy(() -> KV.decode(concat(header(KV.fingerprint()), body(b -> {
      b.writeString("w");
      b.writeString("m");
      b.writeIndex(0);
      b.writeIndex(0);
      b.writeLong(1);
      b.writeLong(2);
      b.writeArrayStart();
      b.setItemCount(1_000_000_000L);
    })))).isInstanceOf(CorruptRecordException.class);
    // A 2 GB string.
    assertThatThrownBy(() -> KV.decode(concat(header(KV.fingerprint()), body(b -> b.writeLong(2_000_000_000L)))))
        .isInstanceOf(CorruptRecordException.class);
    // A negative length.
    assertThatThrownBy(() -> KV.decode(concat(header(KV.fingerprint()), body(b -> b.writeLong(-5)))))
        .isInstanceOf(CorruptRecordException.class);
  }

  interface BodyWriter {
    void write(BinaryEncoder e) throws IOException;
  }

  private static byte[] body(BodyWriter w) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BinaryEncoder e = EncoderFactory.get().binaryEncoder(out, null);
    w.write(e);
    e.flush();
    return out.toByteArray();
  }

  /**
   * Thousands of random mutations of valid encodings: each decodes (a mutation may still be a
   * valid record) or throws a RecordDecodeException, never anything else. Reproduce a failure
   * with -Dtierroute.fuzz.seed=<seed printed in the failure>.
   */
  @Test
  void randomMutationsOnlyEverThrowRecordDecodeExceptions() {
    long seed = Long.getLong("tierroute.fuzz.seed", 0x7135_2025_1130L);
    Random rnd = new Random(seed);
    List<SpecificRecord> samples = Samples.all();
    Map<String, Integer> outcomes = new TreeMap<>();
    int iterations = 6_000;
    for (int i = 0; i < iterations; i++) {
      SpecificRecord sample = samples.get(i % samples.size());
      @SuppressWarnings("unchecked")
      RecordCodec<SpecificRecord> codec = Codecs.forType((Class<SpecificRecord>) sample.getClass());
      byte[] original = codec.encode(sample);
      StringBuilder how = new StringBuilder();
      byte[] mutated = mutate(original, rnd, how);
      try {
        codec.decode(mutated);
        outcomes.merge("decoded", 1, Integer::sum);
      } catch (RecordDecodeException e) {
        outcomes.merge(e.getClass().getSimpleName(), 1, Integer::sum);
        assertThat(e.getMessage()).contains(codec.recordName());
      } catch (Throwable t) {
        fail("seed " + seed + ", iteration " + i + ", " + codec.recordName() + ", mutation " + how
            + ": threw " + t + "\nbytes " + HexFormat.of().formatHex(mutated), t);
      }
    }
    System.out.println("fuzz seed " + seed + ": " + outcomes);
    assertThat(outcomes.getOrDefault("CorruptRecordException", 0)).isGreaterThan(iterations / 4);
    assertThat(outcomes).containsKey("UnknownSchemaException");
  }

  private static byte[] mutate(byte[] in, Random rnd, StringBuilder how) {
    byte[] b = in.clone();
    int rounds = 1 + rnd.nextInt(3);
    for (int r = 0; r < rounds; r++) {
      int kind = rnd.nextInt(6);
      int pos = b.length == 0 ? 0 : rnd.nextInt(b.length);
      switch (kind) {
        case 0 -> {
          if (b.length > 0) {
            int bit = rnd.nextInt(8);
            b[pos] ^= (byte) (1 << bit);
            how.append("flip@").append(pos).append('.').append(bit).append(' ');
          }
        }
        case 1 -> {
          if (b.length > 0) {
            byte v = (byte) rnd.nextInt(256);
            b[pos] = v;
            how.append("set@").append(pos).append('=').append(v & 0xFF).append(' ');
          }
        }
        case 2 -> {
          b = Arrays.copyOf(b, pos);
          how.append("truncate@").append(pos).append(' ');
        }
        case 3 -> {
          byte[] extra = new byte[1 + rnd.nextInt(5)];
          rnd.nextBytes(extra);
          b = concat(b, extra);
          how.append("append").append(extra.length).append(' ');
        }
        case 4 -> {
          byte[] out = new byte[b.length + 1];
          System.arraycopy(b, 0, out, 0, pos);
          out[pos] = (byte) rnd.nextInt(256);
          System.arraycopy(b, pos, out, pos + 1, b.length - pos);
          b = out;
          how.append("insert@").append(pos).append(' ');
        }
        default -> {
          if (b.length > 0) {
            byte[] out = new byte[b.length - 1];
            System.arraycopy(b, 0, out, 0, pos);
            System.arraycopy(b, pos + 1, out, pos, b.length - pos - 1);
            b = out;
            how.append("delete@").append(pos).append(' ');
          }
        }
      }
    }
    return b;
  }
}
