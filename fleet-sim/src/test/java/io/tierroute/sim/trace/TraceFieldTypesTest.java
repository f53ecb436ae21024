package io.tierroute.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Defect 6: a field of the wrong type or range is refused naming it, never read as 0 or as no ids. */
class TraceFieldTypesTest {

    @TempDir
    Path dir;

    @Test
    void theReviewersLineIsRefusedAtItsTimestamp() {
        Path p = TraceLoading.write(dir, "typed.jsonl", TraceLoading.mooncake(0),
                "{\"timestamp\":\"soon\", \"input_length\": 600, \"output_length\": 5, \"hash_ids\":\"none\"}");
        assertThatThrownBy(() -> TraceLoading.load(p)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(p + ":2: field 'timestamp' must be an integer from 0 to 9223372036854775 (ms), got \"soon\"");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "timestamp     | \"soon\"   | field 'timestamp' must be an integer from 0 to 9223372036854775 (ms), got \"soon\"",
        "timestamp     | -1         | field 'timestamp' must be an integer from 0 to 9223372036854775 (ms), got -1",
        "timestamp     | 2.5        | field 'timestamp' must be an integer from 0 to 9223372036854775 (ms), got 2.5",
        "input_length  | 0          | field 'input_length' must be an integer from 1 to 10000000, got 0",
        "input_length  | \"600\"    | field 'input_length' must be an integer from 1 to 10000000, got \"600\"",
        "output_length | -5         | field 'output_length' must be an integer from 0 to 10000000, got -5",
        "output_length | true       | field 'output_length' must be an integer from 0 to 10000000, got true",
        "hash_ids      | \"none\"   | field 'hash_ids' must be an array of non-negative integer ids, got \"none\"",
        "hash_ids      | `[0, \"x\"]` | field 'hash_ids' must be an array of non-negative integer ids, got \"x\" at index 1",
        "hash_ids      | `[0, -1]`  | field 'hash_ids' must be an array of non-negative integer ids, got -1 at index 1",
        "hash_ids      | [0]        | field 'hash_ids' must hold one id per 512-token block of input_length 600 (2), got 1",
        "hash_ids      | null       | missing field 'hash_ids'",
    })
    void aMooncakeFieldOfTheWrongTypeOrRangeIsNamed(String field, String json, String reason) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("timestamp", "7");
        fields.put("input_length", "600");
        fields.put("output_length", "5");
        fields.put("hash_ids", "[0, 1]");
        fields.put(field, json);
        StringBuilder line = new StringBuilder("{");
        fields.forEach((k, v) -> line.append(line.length() > 1 ? ", " : "").append('"').append(k).append("\": ").append(v));
        Path p = TraceLoading.write(dir, "field.jsonl", TraceLoading.mooncake(0), line.append('}').toString());
        assertThatThrownBy(() -> TraceLoading.load(p)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(p + ":2: " + reason);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "2023-11-16 18:15:47,abc,44     | column 'ContextTokens' must be an integer from 1 to 10000000, got \"abc\"",
        "2023-11-16 18:15:47,-3,44      | column 'ContextTokens' must be an integer from 1 to 10000000, got \"-3\"",
        "2023-11-16 18:15:47,0,44       | column 'ContextTokens' must be an integer from 1 to 10000000, got \"0\"",
        "2023-11-16 18:15:47,99999999999,44 | column 'ContextTokens' must be an integer from 1 to 10000000, got \"99999999999\"",
        "2023-11-16 18:15:47,374,-1     | column 'GeneratedTokens' must be an integer from 0 to 10000000, got \"-1\"",
        "2023-11-16 18:15:47,374,       | column 'GeneratedTokens' must be an integer from 0 to 10000000, got \"\"",
        "2023-11-16 18:15:47,374        | expected 3 columns TIMESTAMP,ContextTokens,GeneratedTokens, got 2",
        "2023-11-16 18:15:47,374,44,    | expected 3 columns TIMESTAMP,ContextTokens,GeneratedTokens, got 4",
        "yesterday,374,44               | column 'TIMESTAMP' must be a time like 2023-11-16 18:15:46.6805900 or 2024-05-10 00:00:00.009930+00:00, got \"yesterday\"",
    })
    void anAzureColumnOfTheWrongTypeOrRangeIsNamed(String row, String reason) {
        Path p = TraceLoading.write(dir, "columns.csv", "TIMESTAMP,ContextTokens,GeneratedTokens",
                "2023-11-16 18:15:46.6805900,374,44", row);
        assertThatThrownBy(() -> TraceLoading.load(p)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(p + ":3: " + reason);
    }

    /** A value is quoted with its control characters escaped: an ESC sequence or a NUL went to the terminal raw. */
    @Test
    void controlCharactersOfAValueAreQuotedAsEscapes() {
        Path p = TraceLoading.write(dir, "esc.csv", "TIMESTAMP,ContextTokens,GeneratedTokens",
                "2023-11-16 18:15:46.6805900,\u001b[31mRED\u0000\u001b[0m,44");
        assertThatThrownBy(() -> TraceLoading.load(p)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(p + ":2: column 'ContextTokens' must be an integer from 1 to 10000000, got "
                        + "\"\\u001B[31mRED\\u0000\\u001B[0m\"");
    }

    @Test
    void leadingZerosAreStillTheNumber() {
        Path p = TraceLoading.write(dir, "zeros.csv", "TIMESTAMP,ContextTokens,GeneratedTokens",
                "2023-11-16 18:15:46.6805900,0000000374,044", "2023-11-16 18:15:47,000000000000000400,0");
        assertThat(TraceLoading.load(p)).hasSize(2);
        Path zero = TraceLoading.write(dir, "zero.csv", "TIMESTAMP,ContextTokens,GeneratedTokens",
                "2023-11-16 18:15:46.6805900,0000,1");
        assertThatThrownBy(() -> TraceLoading.load(zero)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(zero + ":2: column 'ContextTokens' must be an integer from 1 to 10000000, got \"0000\"");
    }

    /** RFC 4180 quoting, as a spreadsheet or pandas writes the same columns: read as the fields it quotes. */
    @Test
    void quotedAzureFieldsAreReadAsTheirValues() {
        Path p = TraceLoading.write(dir, "quoted.csv", "\"TIMESTAMP\",\"ContextTokens\",\"GeneratedTokens\"",
                "\"2023-11-16 18:15:46.6805900\",\"374\",\"44\"", "2023-11-16 18:15:47,400,\"0\"");
        assertThat(TraceLoading.load(p)).extracting(r -> r.promptTokens()).containsExactly(374, 400);
    }

    /** Blanks around a quoted field, as a hand-aligned export has them, are not part of it: {@code  "374"} is 374. */
    @Test
    void blanksAroundQuotedAzureFieldsAreSkipped() {
        Path p = TraceLoading.write(dir, "padded.csv", " \"TIMESTAMP\" ,\t\"ContextTokens\",\"GeneratedTokens\"  ",
                "  \"2023-11-16 18:15:46.6805900\" , \"374\",\"44\"\t", "2023-11-16 18:15:47,\t \"400\" \t,0");
        assertThat(TraceLoading.load(p)).extracting(r -> r.promptTokens()).containsExactly(374, 400);
    }

    /** Only the blanks outside the quotes go: a quoted value is kept whole, its blanks and control characters too. */
    @Test
    void aQuotedFieldKeepsEverythingWithinItsQuotes() {
        assertThat(CsvRow.fields(" \" a\t\" , \"\u0001b\u0001\"\t,\"\"\"c\"\"\" ,d ,\"\"")).containsExactly(" a\t", "\u0001b\u0001",
                "\"c\"", "d ", "");
        assertThat(CsvRow.fields(" a\"b , c")).as("a quote within an unquoted field is text").containsExactly(" a\"b ", " c");
        Path p = TraceLoading.write(dir, "control.csv", "TIMESTAMP,ContextTokens,GeneratedTokens",
                "2023-11-16 18:15:46.6805900, \"\u0001374\" ,44");
        assertThatThrownBy(() -> TraceLoading.load(p)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(p + ":2: column 'ContextTokens' must be an integer from 1 to 10000000, got \"\\u0001374\"");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "`2023-11-16 18:15:47,\"3,74\",44`    | column 'ContextTokens' must be an integer from 1 to 10000000, got \"3,74\"",
        "`2023-11-16 18:15:47,\"3\"\"7\",44` | column 'ContextTokens' must be an integer from 1 to 10000000, got \"3\"7\"",
        "`2023-11-16 18:15:47,\"374,44`      | not a CSV row: Missing closing quote for value",
        "`2023-11-16 18:15:47, \"374,44`     | not a CSV row: Missing closing quote for value",
        "`2023-11-16 18:15:47,374,\t\"44`     | not a CSV row: Missing closing quote for value",
        "`2023-11-16 18:15:47, \"374\" 5,44` | not a CSV row: Unexpected character ('5' (code 53)): Expected column separator character (',' (code 44)) or end-of-line",
    })
    void aQuotedAzureFieldIsOneColumnAndAnOpenQuoteIsRefused(String row, String reason) {
        Path p = TraceLoading.write(dir, "quotes.csv", "TIMESTAMP,ContextTokens,GeneratedTokens", row);
        assertThatThrownBy(() -> TraceLoading.load(p)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(p + ":2: " + reason);
    }

    @Test
    void anAzureFileWithoutItsHeaderIsRefusedRatherThanLosingARow() {
        Path p = TraceLoading.write(dir, "noheader.csv", "2023-11-16 18:15:46.6805900,374,44");
        assertThatThrownBy(() -> TraceLoading.load(p)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(p + ":1: the header's column 1 (of TIMESTAMP,ContextTokens,GeneratedTokens) must be "
                        + "TIMESTAMP, got \"2023-11-16 18:15:46.6805900\"");
    }

    /** A header that begins right says what follows: the line shown is cut where it would differ. */
    @Test
    void anAzureHeaderWithAColumnMoreOrAnOddCharacterNamesWhatDiffers() {
        Path extra = TraceLoading.write(dir, "extra.csv", "TIMESTAMP,ContextTokens,GeneratedTokens,Extra",
                "2023-11-16 18:15:46.6805900,374,44,1");
        assertThatThrownBy(() -> TraceLoading.load(extra)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(extra + ":1: the header must be TIMESTAMP,ContextTokens,GeneratedTokens (3 columns), got 4 "
                        + "columns: \"TIMESTAMP,ContextTokens,GeneratedTokens…");
        Path nbsp = TraceLoading.write(dir, "nbsp.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\u00a0",
                "2023-11-16 18:15:46.6805900,374,44");
        assertThatThrownBy(() -> TraceLoading.load(nbsp)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(nbsp + ":1: the header's column 3 (of TIMESTAMP,ContextTokens,GeneratedTokens) must be "
                        + "GeneratedTokens, got \"GeneratedTokens\u00a0\"");
    }
}
