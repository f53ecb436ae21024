package io.tierroute.sim.bench;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * A report file that could not be written, with a one-line message naming the file and the cause: the
 * {@link IOException} of a full disk says only "No space left on device", not which file it was writing.
 */
public final class ReportWriteException extends IOException {

    private final Path file;

    public ReportWriteException(Path file, IOException cause) {
        super("cannot write " + file + ": " + reason(cause), cause);
        this.file = file;
    }

    /** The file that could not be written. */
    public Path file() {
        return file;
    }

    @Override
    public synchronized IOException getCause() {
        return (IOException) super.getCause();
    }

    /** Writes {@code text} (UTF-8) to {@code file}, replacing it; a failure names the file. */
    static void writeString(Path file, String text) throws ReportWriteException {
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new ReportWriteException(file, e);
        }
    }

    /** The cause without the path (the message names it once) or Java's class names. */
    private static String reason(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NoSuchFileException) {
            return "its directory does not exist";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
