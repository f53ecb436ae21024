package io.tierroute.deploy.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's temporary directory is deleted whole even while Flink's shutdown hooks delete their directories in it
 * (Ctrl-C): an entry gone between the listing of its directory and its turn no longer aborts the deletion.
 */
class TreeDeletionTest {

    @Test
    void entriesRemovedBetweenListingAndDeletionAreSkippedAndTheRestIsDeleted(@TempDir Path dir) throws Exception {
        Path root = Files.createDirectories(dir.resolve("tierroute-demo-1"));
        Path files = Files.createDirectories(root.resolve("flink-io"));
        for (String f : List.of("a", "b", "c")) {
            Files.writeString(files.resolve(f), f);
        }
        Path blob = Files.createDirectories(root.resolve("flink-web/blobStore-1/job"));
        Files.writeString(blob.resolve("jar"), "jar");
        Files.writeString(root.resolve("kafka.log"), "log");
        List<Path> vanished = new ArrayList<>();
        TreeDeletion hooks = new TreeDeletion() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                // Flink's hook deletes the rest of flink-io after the walker listed it (a small directory is read
                // in one go, so the other two are listed already and vanish before their turn).
                if (file.getParent().equals(files)) {
                    try (Stream<Path> s = Files.list(files)) {
                        for (Path p : s.toList()) {
                            if (!p.equals(file)) {
                                Files.delete(p);
                            }
                        }
                    } catch (IOException e) {
                        throw new AssertionError(e);
                    }
                }
                return super.visitFile(file, attrs);
            }

            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
                // Another hook deletes a directory the walker is about to empty: its removal finds it gone.
                if (d.equals(blob)) {
                    Files.delete(blob.resolve("jar"));
                    Files.delete(blob);
                }
                return super.preVisitDirectory(d, attrs);
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                if (e instanceof NoSuchFileException) {
                    vanished.add(file);
                }
                return super.visitFileFailed(file, e);
            }
        };

        TreeDeletion.delete(root, hooks);

        assertThat(vanished).as("entries that vanished after being listed (the race the hooks stand in for)")
            .hasSize(2).allSatisfy(p -> assertThat(p.getParent()).isEqualTo(files));
        assertThat(root).as("everything else deleted, the directory with it").doesNotExist();
    }

    @Test
    void aVanishedEntryOrDirectoryIsNotAFailure(@TempDir Path dir) {
        TreeDeletion v = new TreeDeletion();
        Path gone = dir.resolve("gone");
        assertThat(v.visitFileFailed(gone, new NoSuchFileException(gone.toString())))
            .isEqualTo(FileVisitResult.CONTINUE);
        assertThat(v.visitFile(gone, null)).isEqualTo(FileVisitResult.CONTINUE);
        assertThat(v.postVisitDirectory(gone, null)).isEqualTo(FileVisitResult.CONTINUE);
        TreeDeletion.delete(gone);
        TreeDeletion.delete(null);
    }

    @Test
    void aSymbolicLinkIsRemovedNotFollowed(@TempDir Path dir) throws Exception {
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Files.writeString(outside.resolve("keep"), "keep");
        Path root = Files.createDirectories(dir.resolve("tierroute-demo-2"));
        Files.createSymbolicLink(root.resolve("link"), outside);
        TreeDeletion.delete(root);
        assertThat(root).doesNotExist();
        assertThat(outside.resolve("keep")).hasContent("keep");
    }
}
