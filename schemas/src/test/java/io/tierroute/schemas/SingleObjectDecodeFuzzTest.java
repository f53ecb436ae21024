package io.tierroute.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * Coverage-guided fuzzing of Avro single-object decoding for every record type on every topic. The
 * property: {@code decode} either returns a record whose encoding decodes and re-encodes to the same bytes, or throws a
 * {@link RecordDecodeException} with a message; any other throwable (an OutOfMemoryError from a
 * length field claiming gigabytes, a StackOverflowError, an unchecked exception escaping the codec)
 * or a hang is a finding. Inputs start from real encodings of {@link Samples} so the fuzzer reaches
 * the bodies instead of stopping at the header.
 */
class SingleObjectDecodeFuzzTest {

  static {
    // This test runs in a JVM of its own: trust the generated package before Samples builds records
    // whose defaults name generated classes (other tests get it from Codecs, initialised earlier).
    AvroTrust.install();
  }

  private static final List<SpecificRecord> SAMPLES = Samples.all();
  private static final byte[][] ENCODED = encodeAll();
  // One per type, kept across executions: what a bad record leaves in the reused object must not matter.
  private static final java.util.Map<Class<?>, ReusingDecoder<?>> REUSING = new java.util.HashMap<>();

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static byte[][] encodeAll() {
    byte[][] out = new byte[SAMPLES.size()][];
    for (int i = 0; i < out.length; i++) {
      SpecificRecord r = SAMPLES.get(i);
      out[i] = ((RecordCodec) Codecs.forType(r.getClass())).encode(r);
    }
    return out;
  }

  @FuzzTest(maxExecutions = 20_000)
  @SuppressWarnings({"unchecked", "rawtypes"})
  void decodeEveryRecordType(FuzzedDataProvider data) {
    int sample = data.consumeInt(0, SAMPLES.size() - 1);
    RecordCodec codec = Codecs.forType(SAMPLES.get(sample).getClass());
    byte[] input = switch (data.consumeInt(0, 2)) {
      case 0 -> mutate(ENCODED[sample], data); // a real record with bytes changed, cut or inserted
      case 1 -> withHeader(ENCODED[sample], data.consumeRemainingAsBytes()); // a valid header, any body
      default -> data.consumeRemainingAsBytes(); // anything at all
    };
    ReusingDecoder reusing = REUSING.computeIfAbsent(codec.recordType(), t -> codec.reusingDecoder());
    SpecificRecord decoded;
    try {
      decoded = codec.decode(input);
    } catch (RecordDecodeException e) {
      assertThat(e.getMessage()).isNotBlank();
      // the reusing decoder (the fitting job's sources) rejects the same inputs
      assertThatThrownBy(() -> reusing.decode(input))
          .isInstanceOf(e.getClass());
      return;
    }
    assertThat(codec.encode((SpecificRecord) reusing.decode(input))).isEqualTo(codec.encode(decoded));
    assertThat(decoded).isInstanceOf(codec.recordType());
    // Compared as bytes, not with equals(): Avro's record equality says NaN != NaN, and a flipped
    // exponent byte turns any double into a NaN that does round-trip exactly.
    byte[] encoded = codec.encode(decoded);
    assertThat(codec.encode(codec.decode(encoded))).isEqualTo(encoded);
  }

  private static byte[] withHeader(byte[] valid, byte[] body) {
    byte[] out = new byte[RecordCodec.HEADER_LENGTH + body.length];
    System.arraycopy(valid, 0, out, 0, RecordCodec.HEADER_LENGTH);
    System.arraycopy(body, 0, out, RecordCodec.HEADER_LENGTH, body.length);
    return out;
  }

  private static byte[] mutate(byte[] valid, FuzzedDataProvider data) {
    byte[] out = valid.clone();
    int edits = data.consumeInt(1, 8);
    for (int i = 0; i < edits && data.remainingBytes() > 0; i++) {
      int at = data.consumeInt(0, out.length - 1);
      switch (data.consumeInt(0, 2)) {
        case 0 -> out[at] = data.consumeByte();
        case 1 -> out = java.util.Arrays.copyOf(out, Math.max(1, at)); // truncate
        default -> { // insert
          byte[] grown = new byte[out.length + 1];
          System.arraycopy(out, 0, grown, 0, at);
          grown[at] = data.consumeByte();
          System.arraycopy(out, at, grown, at + 1, out.length - at);
          out = grown;
        }
      }
    }
    return out;
  }
}
