package io.tierroute.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierroute.schemas.avro.CompletionLog;
import io.tierroute.schemas.avro.EngineTelemetry;
import io.tierroute.schemas.avro.RoutingDecision;
import io.tierroute.schemas.avro.TierTokens;
import io.tierroute.schemas.avro.Tier;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/** The reusing decoder gives what {@link RecordCodec#decode} gives, record after record, bad ones in between. */
class ReusingDecoderTest {
  static {
    AvroTrust.install(); // before the first generated record is built here
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static void assertSameAsCodec(RecordCodec codec, ReusingDecoder reusing, byte[] bytes) {
    Object expected;
    try {
      expected = codec.decode(bytes);
    } catch (RecordDecodeException e) {
      assertThatThrownBy(() -> reusing.decode(bytes)).isInstanceOf(e.getClass()).hasMessageContaining(
          e.getMessage().substring(0, Math.min(30, e.getMessage().length())));
      return;
    }
    SpecificRecord got = reusing.decode(bytes);
    assertThat(codec.encode(got)).isEqualTo(codec.encode((SpecificRecord) expected));
  }

  @Test
  void theInputTypesOfTheFittingJobDecodeThroughCustomCoders() {
    assertThat(ReusingDecoder.customDecodeSafe(RoutingDecision.getClassSchema())).isTrue();
    assertThat(ReusingDecoder.customDecodeSafe(CompletionLog.getClassSchema())).isTrue();
    assertThat(ReusingDecoder.customDecodeSafe(EngineTelemetry.getClassSchema())).isTrue();
    ReusingDecoder<RoutingDecision> d = Codecs.ROUTING_DECISION.reusingDecoder();
    byte[] bytes = Codecs.ROUTING_DECISION.encode(Samples.routingDecision());
    assertThat(d.decode(bytes)).as("one object, overwritten").isSameAs(d.decode(bytes));
  }

  /**
   * An array of records that hold an array themselves is not decoded through custom coders: customDecode would create
   * the element and size its inner array by the count the bytes claim (a hostile 2^30 is an OutOfMemoryError).
   */
  @Test
  void anArrayInsideAnArraysElementsTakesTheSafePath() {
    Schema flat = new Schema.Parser().parse("{\"type\": \"record\", \"name\": \"Flat\", \"fields\": [{\"name\": "
        + "\"items\", \"type\": {\"type\": \"array\", \"items\": {\"type\": \"record\", \"name\": \"Item\", "
        + "\"fields\": [{\"name\": \"n\", \"type\": \"long\"}]}}}]}");
    Schema nested = new Schema.Parser().parse("{\"type\": \"record\", \"name\": \"Outer\", \"fields\": [{\"name\": "
        + "\"items\", \"type\": {\"type\": \"array\", \"items\": {\"type\": \"record\", \"name\": \"Inner\", "
        + "\"fields\": [{\"name\": \"ns\", \"type\": {\"type\": \"array\", \"items\": \"long\"}}]}}}]}");
    assertThat(ReusingDecoder.customDecodeSafe(flat)).isTrue();
    assertThat(ReusingDecoder.customDecodeSafe(nested)).isFalse();
  }

  @Test
  void sequencesOfRecordsWithShorterAndLongerArraysAndNullsDecodeAsTheCodecDoes() {
    ReusingDecoder<CompletionLog> d = Codecs.COMPLETION_LOG.reusingDecoder();
    CompletionLog ok = Samples.completionLog();
    CompletionLog three = CompletionLog.newBuilder(ok).setCachedTokens(List.of(new TierTokens(Tier.HBM, 10),
        new TierTokens(Tier.CPU, 20), new TierTokens(Tier.NVME, 30))).build();
    CompletionLog none = CompletionLog.newBuilder(ok).setCachedTokens(List.of()).setFirstTokenTimeMs(null).build();
    for (CompletionLog c : List.of(three, ok, none, Samples.failedCompletion(), three, none)) {
      byte[] bytes = Codecs.COMPLETION_LOG.encode(c);
      assertThat(d.decode(bytes)).isEqualTo(c);
      // a bad record in between leaves nothing behind for the next one
      assertSameAsCodec(Codecs.COMPLETION_LOG, d, Arrays.copyOf(bytes, bytes.length - 3));
      assertSameAsCodec(Codecs.COMPLETION_LOG, d, Arrays.copyOf(bytes, bytes.length + 2));
    }
  }

  @Test
  void everyTypeAndEveryTruncationOrFlippedByteBehavesAsTheCodec() {
    for (SpecificRecord r : Samples.all()) {
      @SuppressWarnings({"unchecked", "rawtypes"})
      RecordCodec codec = Codecs.forType(r.getClass());
      ReusingDecoder<?> reusing = codec.reusingDecoder();
      @SuppressWarnings("unchecked")
      byte[] bytes = codec.encode(r);
      for (int cut = 0; cut <= bytes.length; cut++) {
        assertSameAsCodec(codec, reusing, Arrays.copyOf(bytes, cut));
      }
      for (int at = RecordCodec.HEADER_LENGTH; at < bytes.length; at++) {
        for (int value : new int[] {0x00, 0x7F, 0x80, 0xFF}) {
          byte[] flipped = bytes.clone();
          flipped[at] = (byte) value;
          assertSameAsCodec(codec, reusing, flipped);
          assertSameAsCodec(codec, reusing, bytes);
        }
      }
    }
  }

  @Test
  void aHugeArrayCountIsAnErrorNotAnAllocation() {
    // cachedTokens claims 2^30 entries and the bytes end soon after: the seeded array is refilled one
    // decoded element at a time, so the bytes run out or turn out malformed, as on the generic path.
    CompletionLog empty = CompletionLog.newBuilder(Samples.completionLog()).setCachedTokens(List.of()).build();
    CompletionLog one = CompletionLog.newBuilder(empty).setCachedTokens(List.of(new TierTokens(Tier.CPU, 5))).build();
    byte[] a = Codecs.COMPLETION_LOG.encode(empty);
    byte[] b = Codecs.COMPLETION_LOG.encode(one);
    int at = 0;
    while (a[at] == b[at]) {
      at++; // the array's count: 0 in a, 1 in b
    }
    byte[] huge = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x08}; // zig-zag varint of 2^30
    byte[] bad = new byte[a.length - 1 + huge.length];
    System.arraycopy(a, 0, bad, 0, at);
    System.arraycopy(huge, 0, bad, at, huge.length);
    System.arraycopy(a, at + 1, bad, at + huge.length, a.length - at - 1);
    ReusingDecoder<CompletionLog> d = Codecs.COMPLETION_LOG.reusingDecoder();
    assertThatThrownBy(() -> d.decode(bad)).isInstanceOf(CorruptRecordException.class);
    assertSameAsCodec(Codecs.COMPLETION_LOG, d, bad);
    assertThat(d.decode(b)).isEqualTo(one);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  @Test
  void hugeOrNegativeStringLengthsAreRejectedWithoutAllocating() {
    // The first field of each input type is a string: a 2 GB or a negative length right after the header.
    for (RecordCodec<?> codec : List.of(Codecs.ROUTING_DECISION, Codecs.COMPLETION_LOG, Codecs.ENGINE_TELEMETRY)) {
      ReusingDecoder<?> d = codec.reusingDecoder();
      for (long length : new long[] {2_000_000_000L, -5}) {
        byte[] bytes = new byte[RecordCodec.HEADER_LENGTH + 10];
        System.arraycopy(((RecordCodec) codec).encode(sample(codec)), 0, bytes, 0, RecordCodec.HEADER_LENGTH);
        long zigzag = (length << 1) ^ (length >> 63);
        int at = RecordCodec.HEADER_LENGTH;
        while ((zigzag & ~0x7FL) != 0) {
          bytes[at++] = (byte) ((zigzag & 0x7F) | 0x80);
          zigzag >>>= 7;
        }
        bytes[at++] = (byte) zigzag;
        byte[] input = Arrays.copyOf(bytes, at);
        assertThatThrownBy(() -> d.decode(input)).isInstanceOf(CorruptRecordException.class);
      }
    }
  }

  private static SpecificRecord sample(RecordCodec<?> codec) {
    return Samples.all().stream().filter(r -> r.getClass() == codec.recordType()).findFirst().orElseThrow();
  }
}
