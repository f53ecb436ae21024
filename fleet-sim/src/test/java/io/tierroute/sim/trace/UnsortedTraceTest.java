package io.tierroute.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Defect 4: an unsorted Mooncake file is refused at the first out-of-order line, by the reader on the raw
 * stamps (the replay's spreading of equal stamps used to move the failure to another record).
 */
class UnsortedTraceTest {

    private static final Path SHARED = Path.of("../../shared/traces");

    @TempDir
    Path dir;

    @Test
    void theFirstOutOfOrderLineIsNamed() {
        Path p = TraceLoading.write(dir, "unsorted.jsonl", TraceLoading.mooncake(0), TraceLoading.mooncake(3000),
                TraceLoading.mooncake(3000), "", TraceLoading.mooncake(3000), TraceLoading.mooncake(6000),
                TraceLoading.mooncake(3000), TraceLoading.mooncake(9000));
        assertThatThrownBy(() -> TraceLoading.load(p)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage(p + ":7: not sorted by time: timestamp 3000 is earlier than the previous record's 6000");
    }

    @Test
    void everySharedTraceIsSortedAndLoads() throws IOException {
        List<Path> traces = new ArrayList<>();
        for (String sub : new String[] {"mooncake", "azure"}) {
            try (DirectoryStream<Path> files = Files.newDirectoryStream(SHARED.resolve(sub), "*.{jsonl,csv}")) {
                files.forEach(traces::add);
            }
        }
        assertThat(traces).hasSizeGreaterThanOrEqualTo(2);
        for (Path t : traces) {
            assertThat(TraceLoading.load(t)).as(t.toString()).isNotEmpty();
        }
    }
}
