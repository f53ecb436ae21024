package io.tierroute.sim.trace;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Defect 1: a malformed JSONL line fails with {@code PATH:LINE: not JSON ...}, free of Jackson's location noise; JSON
 * that is not JSONL (an array, two records on a line) says what JSONL asks for.
 */
class MalformedJsonTraceTest {

    @TempDir
    Path dir;

    @Test
    void aTruncatedLineIsNamedWithoutJacksonNoise() {
        Path p = TraceLoading.write(dir, "trunc.jsonl", TraceLoading.mooncake(0), TraceLoading.mooncake(0),
                TraceLoading.mooncake(1), TraceLoading.mooncake(2), TraceLoading.mooncake(3),
                "{\"timestamp\": 4, \"input_length\": 600, \"output_len");
        assertThatThrownBy(() -> TraceLoading.load(p))
                .isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(p + ":6: not JSON: the line ends inside the object (truncated? or pretty-printed: JSONL holds one object per line, e.g. jq -c)")
                .hasRootCauseInstanceOf(JsonProcessingException.class);
    }

    @Test
    void otherBadJsonNamesTheColumnAndNoSource() {
        Path p = TraceLoading.write(dir, "bad.jsonl", TraceLoading.mooncake(0), "{\"timestamp\": 1, x}");
        assertThatThrownBy(() -> TraceLoading.load(p))
                .isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(p + ":2: not JSON at column 18: Unexpected character ('x'")
                .hasMessageNotContaining("Source")
                .hasMessageNotContaining("\n");
    }

    @Test
    void trailingTextAndRepeatedFieldsAreNotDropped() {
        Path trailing = TraceLoading.write(dir, "t.jsonl", TraceLoading.mooncake(0) + " x");
        assertThatThrownBy(() -> TraceLoading.load(trailing)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(trailing + ":1: not JSON at column 80: Unrecognized token 'x'")
                .hasMessageNotContaining("Source");
        Path twice = TraceLoading.write(dir, "d.jsonl", "{\"timestamp\": 1, \"timestamp\": 2, \"input_length\": 600, "
                + "\"output_length\": 5, \"hash_ids\": [0, 1]}");
        assertThatThrownBy(() -> TraceLoading.load(twice)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(twice + ":1: not JSON").hasMessageContaining("'timestamp'")
                .hasMessageNotContaining("Source");
        Path number = TraceLoading.write(dir, "n.jsonl", "12");
        assertThatThrownBy(() -> TraceLoading.load(number)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(number + ":1: not a JSON object: 12");
    }

    /** The old code said "the line ends inside the object (truncated?)" of a pretty-printed array's "[". */
    @Test
    void aJsonArrayIsNamedAsNotJsonl() {
        String array = "a JSON array is not JSONL: each line must hold one JSON object, with no [ ] around the records "
                + "and no commas between them";
        Path pretty = TraceLoading.write(dir, "pretty.jsonl", "[", "  " + TraceLoading.mooncake(0) + ",",
                "  " + TraceLoading.mooncake(1), "]");
        assertThatThrownBy(() -> TraceLoading.load(pretty)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(pretty + ":1: " + array);
        Path oneLine = TraceLoading.write(dir, "one-line.jsonl", "[" + TraceLoading.mooncake(0) + ", "
                + TraceLoading.mooncake(1) + "]");
        assertThatThrownBy(() -> TraceLoading.load(oneLine)).hasMessage(oneLine + ":1: " + array);
        Path commas = TraceLoading.write(dir, "commas.jsonl", TraceLoading.mooncake(0) + ",", TraceLoading.mooncake(1));
        assertThatThrownBy(() -> TraceLoading.load(commas)).hasMessage(commas + ":1: a comma after the record at "
                + "column 78: each line must hold one JSON object (JSONL), with no commas between records");
    }

    /** The old code passed on Jackson's "Trailing token (of type START_OBJECT) ... FAIL_ON_TRAILING_TOKENS". */
    @Test
    void twoRecordsOnALineAreNamedAsSuch() {
        Path two = TraceLoading.write(dir, "two.jsonl", TraceLoading.mooncake(0),
                TraceLoading.mooncake(1) + " " + TraceLoading.mooncake(2));
        assertThatThrownBy(() -> TraceLoading.load(two)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(two + ":2: a second JSON value at column 79: each line must hold one JSON object (JSONL), "
                        + "one record per line")
                .hasMessageNotContaining("Trailing token").hasMessageNotContaining("FAIL_ON");
    }
}
