package io.tierroute.cli;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/** An I/O error as a user reads it: what went wrong with which path, without Java's exception class names. */
final class IoErrors {
    private IoErrors() {}

    /**
     * Why {@code file} cannot be read, as {@link #describe} says it; null when it can. A regular file is opened and its
     * first byte read (a mode the caller may read can still fail, e.g. /proc/self/mem); anything else (a FIFO such as
     * a shell's {@code <(...)} at /dev/fd/63, a device) is only looked at, never opened: opening a FIFO blocks until
     * it has a writer, and reading one consumes what its reader (a Kafka client) would then miss.
     */
    static String unreadable(java.nio.file.Path file) {
        if (!java.nio.file.Files.isRegularFile(file)) {
            if (!java.nio.file.Files.exists(file)) {
                return "no such file or directory: " + file;
            }
            return java.nio.file.Files.isReadable(file) ? null : "permission denied: " + file;
        }
        try (var in = java.nio.file.Files.newInputStream(file)) {
            in.read();
            return null;
        } catch (IOException e) {
            return describe(e);
        }
    }

    /**
     * Why the file a setting names ({@code path}, as given) cannot be read: not a path, a directory, or
     * {@link #unreadable}'s reason; null when it can.
     */
    static String unreadableNamed(String path) {
        try {
            java.nio.file.Path p = java.nio.file.Path.of(path);
            return java.nio.file.Files.isDirectory(p) ? "a directory, not a file" : unreadable(p);
        } catch (java.nio.file.InvalidPathException e) {
            return "not a path: " + e.getReason();
        }
    }

    static String describe(IOException e) {
        if (e instanceof NoSuchFileException f) {
            return "no such file or directory: " + f.getFile();
        }
        if (e instanceof AccessDeniedException f) {
            return "permission denied: " + f.getFile();
        }
        if (e instanceof FileAlreadyExistsException f) {
            return "already exists: " + f.getFile();
        }
        if (e instanceof NotDirectoryException f) {
            return "not a directory: " + f.getFile();
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason().toLowerCase(java.util.Locale.ROOT) + (f.getFile() == null ? "" : ": " + f.getFile());
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
