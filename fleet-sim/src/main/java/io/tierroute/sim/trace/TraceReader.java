package io.tierroute.sim.trace;

import java.nio.file.Path;
import java.util.List;

/**
 * Reads one trace format into {@link TraceRecord}s, in file order. Readers parse one line at a time
 * ({@link #parse}) and throw an {@link IllegalArgumentException} with the reason alone; {@link #read}
 * prefixes it with the file and line ({@link TraceFiles}).
 */
public interface TraceReader {

    /** The format's block size in tokens when its ids name blocks (Mooncake: 512), else 0. */
    int blockSize();

    /** True when the first line is a header, given to {@link #checkHeader} instead of {@link #parse}. */
    default boolean hasHeader() {
        return false;
    }

    /** Refuses a header that is not the format's (a file without one would silently lose its first row). */
    default void checkHeader(String line) {}

    /**
     * Parses one non-empty line; {@code previous} is the record before it, or null for the first. Refuses
     * a line whose time is earlier than the previous one's, comparing the trace's own timestamps.
     */
    TraceRecord parse(String line, TraceRecord previous);

    /** The file's records; a bad file fails with {@code PATH:LINE: reason} or {@code PATH: reason}. */
    default List<TraceRecord> read(Path file) {
        return TraceFiles.read(this, file);
    }
}
