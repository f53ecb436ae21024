package io.tierroute.sim.trace;

import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.workload.RequestFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Loads a trace as the bench does (format by extension, 512-token blocks), from files the tests write. */
final class TraceLoading {

    private TraceLoading() {}

    static List<SimRequest> load(Path file) {
        return TraceReplay.load(file, TraceFormat.ofFile(file.toString()), new RequestFactory("m", 512), 0);
    }

    /** Writes {@code lines}, each ended by a newline, to {@code dir/name}. */
    static Path write(Path dir, String name, String... lines) {
        Path p = dir.resolve(name);
        try {
            Files.writeString(p, lines.length == 0 ? "" : String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }

    /** A valid Mooncake line at {@code ms} with a 600-token prompt (two blocks). */
    static String mooncake(long ms) {
        return "{\"timestamp\": " + ms + ", \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [0, 1]}";
    }
}
