package io.tierroute.sim.trace;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads one trace format into {@link TraceRecord}s, in file order. Readers parse one line at a time
 * ({@link #parse}); a malformed line fails with its number and the reason.
 */
public interface TraceReader {

    /** The format's block size in tokens when its ids name blocks (Mooncake: 512), else 0. */
    int blockSize();

    /** True when the first line is a header to skip. */
    default boolean hasHeader() {
        return false;
    }

    /** Parses one non-empty line; {@code previous} is the record before it, or null. */
    TraceRecord parse(String line, TraceRecord previous);

    default List<TraceRecord> read(Path file) {
        List<TraceRecord> out = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            int n = 0;
            TraceRecord prev = null;
            while ((line = in.readLine()) != null) {
                n++;
                if ((n == 1 && hasHeader()) || line.isBlank()) {
                    continue;
                }
                try {
                    prev = parse(line, prev);
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException(file + ":" + n + ": " + e.getMessage(), e);
                }
                out.add(prev);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read trace " + file, e);
        }
        return out;
    }
}
