package io.tierroute.sim.trace;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Defect 1: a malformed JSONL line fails with {@code PATH:LINE: not JSON ...}, free of Jackson's location noise. */
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
                .hasMessage(p + ":6: not JSON: the line ends inside the object (truncated?)")
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
        Path trailing = TraceLoading.write(dir, "t.jsonl", TraceLoading.mooncake(0) + " {}");
        assertThatThrownBy(() -> TraceLoading.load(trailing)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(trailing + ":1: not JSON").hasMessageNotContaining("Source");
        Path twice = TraceLoading.write(dir, "d.jsonl", "{\"timestamp\": 1, \"timestamp\": 2, \"input_length\": 600, "
                + "\"output_length\": 5, \"hash_ids\": [0, 1]}");
        assertThatThrownBy(() -> TraceLoading.load(twice)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(twice + ":1: not JSON").hasMessageContaining("'timestamp'")
                .hasMessageNotContaining("Source");
        Path array = TraceLoading.write(dir, "a.jsonl", "[1, 2]");
        assertThatThrownBy(() -> TraceLoading.load(array)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(array + ":1: not a JSON object: [1, 2]");
    }
}
