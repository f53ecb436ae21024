package io.tierroute.deploy.local;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;

/**
 * Empties Flink's scratch directories ({@link FlinkSessionCluster#scratchDirs}) before a cluster starts: a killed or
 * restarted JVM leaves its RPC jar copy, working directories and spill files there (QA: 306 MB after six
 * {@code cluster up}s). Only while no JVM of that cluster runs: they are its working files.
 */
public final class FlinkScratch {

    private FlinkScratch() {
    }

    /**
     * Deletes everything inside {@code dirs} (the directories themselves stay; a missing one is skipped; a symbolic
     * link is removed, not followed). Returns the bytes freed.
     *
     * @throws IllegalStateException naming what could not be deleted
     */
    public static long clear(List<Path> dirs) {
        long[] bytes = {0};
        for (Path dir : dirs) {
            if (!Files.isDirectory(dir)) {
                continue;
            }
            try {
                Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                        bytes[0] += attrs.isRegularFile() ? attrs.size() : 0;
                        Files.deleteIfExists(file);
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                        if (e instanceof NoSuchFileException) {
                            return FileVisitResult.CONTINUE;
                        }
                        throw e;
                    }

                    @Override
                    public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                        if (e != null) {
                            throw e;
                        }
                        if (!d.equals(dir)) {
                            Files.deleteIfExists(d);
                        }
                        return FileVisitResult.CONTINUE;
                    }
                });
            } catch (IOException e) {
                throw new IllegalStateException("could not clear Flink's scratch directory " + dir + " (" + e
                        + "); nothing has started: remove what is in it by hand", e);
            }
        }
        return bytes[0];
    }
}
