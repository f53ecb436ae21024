package io.tierroute.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The shared JSON body rules. The messages are Jackson 2.19's {@code getOriginalMessage()} texts, copied as it gives
 * them (schemas does not depend on Jackson); the APIs' own tests send the bodies that produce them.
 */
class JsonWireTest {

  private static final String SOURCE =
      "[Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 1]";

  @Test
  void aMalformedBodyIsSaidWithItsPositionsAndWithoutTheParsersSourceOrSwitches() {
    assertThat(JsonWire.malformed("Unexpected end-of-input: expected close marker for Object (start marker at "
        + SOURCE + ")", 1, 2))
        .isEqualTo("malformed JSON at line 1, column 2: Unexpected end-of-input: expected close marker for Object"
            + " (start marker at line 1, column 1)");
    assertThat(JsonWire.malformed("Unexpected close marker '}': expected ']' (for Array starting at "
        + SOURCE.replace("column: 1", "column: 6") + ")", 1, 8))
        .isEqualTo("malformed JSON at line 1, column 8: Unexpected close marker '}': expected ']'"
            + " (for Array starting at line 1, column 6)");
    assertThat(JsonWire.malformed("Non-standard token 'NaN': enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to "
        + "allow", 1, 9)).isEqualTo("malformed JSON at line 1, column 9: Non-standard token 'NaN' (not valid JSON)");
    assertThat(JsonWire.malformed("Document nesting depth (1001) exceeds the maximum allowed (1000, from "
        + "`StreamReadConstraints.getMaxNestingDepth()`)", 1, 1002))
        .isEqualTo("malformed JSON at line 1, column 1002: Document nesting depth (1001) exceeds the maximum allowed"
            + " (1000)");
    assertThat(JsonWire.malformed("Unexpected character ('}' (code 125))\n at " + SOURCE, 0, 0))
        .as("only the first line; no position when none is known")
        .isEqualTo("malformed JSON: Unexpected character ('}' (code 125))");
    assertThat(JsonWire.malformed(null, 3, 4)).isEqualTo("malformed JSON at line 3, column 4");
  }

  /** Bodies a client sent the selector: each would have been read as another, valid-looking text. */
  @Test
  void overlongFormsSurrogatesCodePointsPastTheLastAndNulAreNotWellFormedUtf8() {
    assertThat(JsonWire.utf8Problem(bytes(0x7b, 0x22, 0xc0, 0xaf, 0x22, 0x7d), 6)).as("C0 AF, an overlong '/'")
        .isEqualTo("byte 0xC0 at offset 2 is not UTF-8");
    assertThat(JsonWire.utf8Problem(bytes(0x22, 0xe0, 0x80, 0xaf, 0x22), 5)).as("E0 80 AF, overlong")
        .startsWith("the bytes at offset 1 are not well-formed UTF-8");
    assertThat(JsonWire.utf8Problem(bytes(0x22, 0xed, 0xa0, 0x80, 0x22), 5)).as("ED A0 80, a surrogate").isNotNull();
    assertThat(JsonWire.utf8Problem(bytes(0x22, 0xf4, 0x90, 0x80, 0x80, 0x22), 6)).as("past U+10FFFF").isNotNull();
    assertThat(JsonWire.utf8Problem(bytes(0x22, 0xc3), 2)).as("cut short").isNotNull();
    assertThat(JsonWire.utf8Problem("{\"text\":\"a\"}\u0000garbage".getBytes(StandardCharsets.UTF_8), 20))
        .isEqualTo("a NUL byte at offset 12 (JSON text escapes it as \\u0000)");
    byte[] fine = "{\"w\":\"café 世界 😀\"}".getBytes(StandardCharsets.UTF_8);
    assertThat(JsonWire.utf8Problem(fine, fine.length)).isNull();
    assertThat(JsonWire.utf8Problem(bytes(0x7b, 0xc0), 1)).as("only the first length bytes count").isNull();
  }

  /** The validator against the JDK's strict decoder, the reference, on random and near-UTF-8 bytes. */
  @Test
  void wellFormedAsTheJdksStrictDecoderSays() {
    java.util.Random random = new java.util.Random(7);
    int[] leads = {0x41, 0x7f, 0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3,
        0xf4, 0xf5, 0xff};
    int[] tails = {0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0};
    for (int run = 0; run < 200_000; run++) {
      int n = 1 + random.nextInt(24); // past 8 and 16: the eight-bytes-at-a-time scan and its tail
      byte[] b = new byte[n];
      for (int i = 0; i < n; i++) {
        int kind = random.nextInt(4);
        b[i] = (byte) (kind <= 1 ? 0x20 + random.nextInt(0x5f) // plain ASCII runs
            : kind == 2 || i == 0 ? leads[random.nextInt(leads.length)] : tails[random.nextInt(tails.length)]);
      }
      boolean strict;
      try {
        StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(b));
        strict = true;
      } catch (java.nio.charset.CharacterCodingException e) {
        strict = false;
      }
      boolean noNul = true;
      for (byte x : b) {
        noNul &= x != 0;
      }
      assertThat(JsonWire.utf8Problem(b, n) == null).as(java.util.HexFormat.ofDelimiter(" ").formatHex(b))
          .isEqualTo(strict && noNul);
    }
  }

  private static byte[] bytes(int... values) {
    byte[] b = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      b[i] = (byte) values[i];
    }
    return b;
  }

  @Test
  void utf16AndUtf32AreToldFromUtf8() {
    assertThat(JsonWire.notUtf8("{}".getBytes(StandardCharsets.UTF_16BE), 4)).isTrue();
    assertThat(JsonWire.notUtf8("{}".getBytes(StandardCharsets.UTF_16), 6)).as("with a BOM").isTrue();
    assertThat(JsonWire.notUtf8("{\"a\":\"é\"}".getBytes(StandardCharsets.UTF_8), 10)).isFalse();
  }
}
