package io.tierroute.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.workload.RequestFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Fuzzes both trace readers through the path a benchmark takes: a trace file (seeded with the first
 * lines of the real Mooncake and Azure traces, then changed by the fuzzer) is read and replayed into
 * simulator requests. The property: the file loads into sane requests, or fails with an
 * {@link IllegalArgumentException} naming the line; nothing else escapes, nothing runs out of memory.
 */
class TraceFileFuzzTest {

    private static final Path TRACES = Path.of("..", "..", "shared", "traces");
    private static final String MOONCAKE = head(TRACES.resolve("mooncake/conversation_trace.jsonl"), 3);
    private static final String AZURE = head(TRACES.resolve("azure/AzureLLMInferenceTrace_conv.csv"), 4);
    private static final Path FILE = tempFile();

    private static String head(Path file, int lines) {
        try (var in = Files.lines(file)) {
            return String.join("\n", in.limit(lines).toList()) + "\n";
        } catch (IOException e) {
            throw new IllegalStateException("the fuzzer's seeds are the shared traces: " + file, e);
        }
    }

    private static Path tempFile() {
        try {
            Path p = Files.createTempFile("trace-fuzz", ".txt");
            p.toFile().deleteOnExit();
            return p;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @FuzzTest(maxExecutions = 10_000)
    void loadsSaneRequestsOrNamesTheLine(FuzzedDataProvider data) throws IOException {
        boolean mooncake = data.consumeBoolean();
        String seed = mooncake ? MOONCAKE : AZURE;
        StringBuilder text = new StringBuilder(seed);
        int edits = data.consumeInt(0, 4);
        for (int i = 0; i < edits && text.length() > 0; i++) {
            int at = data.consumeInt(0, text.length() - 1);
            int len = data.consumeInt(0, Math.min(12, text.length() - at));
            text.replace(at, at + len, data.consumeString(16));
        }
        if (data.consumeBoolean()) {
            text.append(data.consumeRemainingAsString());
        }
        // getBytes replaces an unpaired surrogate (the fuzzer makes them) with ?; writeString would throw on it
        Files.write(FILE, text.toString().getBytes(StandardCharsets.UTF_8));
        TraceFormat format = mooncake ? TraceFormat.MOONCAKE : TraceFormat.AZURE;
        RequestFactory factory = new RequestFactory("m", mooncake ? 512 : 16);
        List<SimRequest> requests;
        try {
            requests = TraceReplay.load(FILE, format, factory, 0);
        } catch (IllegalArgumentException e) {
            assertThat(e.getMessage()).contains(FILE.toString());
            return;
        }
        for (var r : requests) {
            assertThat(r.promptTokens()).isPositive();
            assertThat(r.arrivalMicros()).isNotNegative();
        }
    }
}
