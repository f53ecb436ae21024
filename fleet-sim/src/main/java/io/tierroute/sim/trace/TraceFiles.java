package io.tierroute.sim.trace;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a trace file line by line through its format's {@link TraceReader}, turning every bad input into an
 * {@link IllegalArgumentException} whose message is one line, {@code PATH:LINE: reason} (or {@code PATH:
 * reason} for the whole file), with PATH as the caller gave it: the CLI prints the message as it is.
 */
final class TraceFiles {

    private TraceFiles() {}

    static List<TraceRecord> read(TraceReader reader, Path file) {
        String path = file.toString();
        if (Files.isDirectory(file)) {
            throw whole(path, "is a directory", null);
        }
        List<TraceRecord> out = new ArrayList<>();
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file))) {
            Utf8Lines lines = new Utf8Lines(in);
            TraceRecord prev = null;
            for (int n = 1; ; n++) {
                String line;
                try {
                    line = lines.next();
                } catch (CharacterCodingException e) {
                    throw new IllegalArgumentException(path + ":" + n + ": not UTF-8 text", e);
                } catch (Utf8Lines.LineTooLongException e) {
                    throw new IllegalArgumentException(path + ":" + n + ": " + e.getMessage(), e);
                }
                if (line == null) {
                    break;
                }
                if (n == 1) {
                    line = stripByteOrderMark(line);
                }
                try {
                    if (n == 1 && reader.hasHeader()) {
                        reader.checkHeader(line);
                        continue;
                    }
                    if (line.isBlank()) {
                        continue;
                    }
                    prev = reader.parse(line, prev);
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException(path + ":" + n + ": " + reason(e), e);
                }
                out.add(prev);
            }
        } catch (NoSuchFileException e) {
            throw whole(path, "does not exist", e);
        } catch (AccessDeniedException e) {
            throw whole(path, "is not readable (permission denied)", e);
        } catch (IOException e) {
            throw whole(path, "cannot be read: " + reason(e), e);
        }
        if (out.isEmpty()) {
            // An empty trace would only fail later, far from the file (an empty request list in the bench).
            throw whole(path, "no requests", null);
        }
        return out;
    }

    private static IllegalArgumentException whole(String path, String reason, Exception cause) {
        return new IllegalArgumentException(path + ": " + reason, cause);
    }

    /** The exception's message on one line; a reader's own reasons already are. */
    private static String reason(Exception e) {
        String m = e.getMessage();
        if (m == null || m.isBlank()) {
            return e.getClass().getSimpleName();
        }
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    private static String stripByteOrderMark(String line) {
        return line.startsWith("\uFEFF") ? line.substring(1) : line;
    }
}
