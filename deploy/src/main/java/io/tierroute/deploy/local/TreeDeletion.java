package io.tierroute.deploy.local;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Deletes a directory tree other processes may still be changing (the demo's temporary directory, a browser profile),
 * best effort: an entry that vanished meanwhile is skipped and one that cannot be deleted does not stop the rest. On
 * Ctrl-C the demo's shutdown hook runs while Flink's own hooks delete their directories under the same directory; a
 * walk listed first and deleted after, and one entry gone before its turn aborted the whole deletion
 * (NoSuchFileException) and left the directory behind. ({@link FlinkScratch#clear} is the strict kind: it reports what
 * it could not delete.) Symbolic links are
 * removed, not followed. A visitor (tests override its methods to remove entries in between).
 */
public class TreeDeletion extends SimpleFileVisitor<Path> {

    protected TreeDeletion() {
    }

    /** Deletes {@code root} and everything under it that it can; a missing or null {@code root} is nothing to do. */
    public static void delete(Path root) {
        delete(root, new TreeDeletion());
    }

    public static void delete(Path root, TreeDeletion visitor) {
        if (root == null) {
            return;
        }
        try {
            Files.walkFileTree(root, visitor);
        } catch (IOException e) {
            // not thrown: the visitor swallows every failure to go on with the rest
        }
    }

    @Override
    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
        deleteQuietly(file);
        return FileVisitResult.CONTINUE;
    }

    /** Gone since its directory was listed (Flink's hooks deleted it), or unreadable: skipped, the rest goes on. */
    @Override
    public FileVisitResult visitFileFailed(Path file, IOException e) {
        deleteQuietly(file); // an unreadable directory may still be empty, or a file in it
        return FileVisitResult.CONTINUE;
    }

    @Override
    public FileVisitResult postVisitDirectory(Path dir, IOException e) {
        deleteQuietly(dir);
        return FileVisitResult.CONTINUE;
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            // gone meanwhile or not deletable (as File.delete before): the rest is still deleted
        }
    }
}
