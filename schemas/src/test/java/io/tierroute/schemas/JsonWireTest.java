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

  @Test
  void utf16AndUtf32AreToldFromUtf8() {
    assertThat(JsonWire.notUtf8("{}".getBytes(StandardCharsets.UTF_16BE), 4)).isTrue();
    assertThat(JsonWire.notUtf8("{}".getBytes(StandardCharsets.UTF_16), 6)).as("with a BOM").isTrue();
    assertThat(JsonWire.notUtf8("{\"a\":\"é\"}".getBytes(StandardCharsets.UTF_8), 10)).isFalse();
  }
}
