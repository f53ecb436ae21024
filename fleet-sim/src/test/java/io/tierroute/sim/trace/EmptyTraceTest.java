package io.tierroute.sim.trace;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Defect 2: a trace with no requests is refused by the reader, not left to fail later in the bench. */
class EmptyTraceTest {

    @TempDir
    Path dir;

    @Test
    void anEmptyOrBlankMooncakeFileHasNoRequests() {
        Path empty = TraceLoading.write(dir, "empty.jsonl");
        assertThatThrownBy(() -> TraceLoading.load(empty)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(empty + ": no requests");
        Path blank = TraceLoading.write(dir, "blank.jsonl", "", "  ");
        assertThatThrownBy(() -> TraceLoading.load(blank)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(blank + ": no requests");
    }

    @Test
    void anAzureFileWithOnlyItsHeaderHasNoRequests() {
        Path p = TraceLoading.write(dir, "header.csv", "TIMESTAMP,ContextTokens,GeneratedTokens");
        assertThatThrownBy(() -> TraceLoading.load(p)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(p + ": no requests");
    }
}
