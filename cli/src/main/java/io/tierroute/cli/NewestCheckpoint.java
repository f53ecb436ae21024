package io.tierroute.cli;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The checkpoint a stopped job really left, for {@code cluster down}'s resume line. Flink's REST API names the latest
 * completed checkpoint while the job still runs; a job checkpointing every second completes another one before its
 * TaskManager is stopped and discards the one named (it retains one), so the line sent the operator to a directory
 * that was gone ("Cannot find checkpoint or savepoint file/directory ... chk-5"). After the stop, the newest
 * {@code chk-N} beside the one named that holds its {@code _metadata} is the one to resume from.
 */
final class NewestCheckpoint {

    private NewestCheckpoint() {
    }

    /** The newest completed checkpoint in the directory of {@code reported} (a {@code file:} URI), else {@code reported}. */
    static String after(String reported) {
        Path named;
        try {
            URI uri = URI.create(reported);
            if (!"file".equals(uri.getScheme())) {
                return reported; // a remote checkpoint storage: not ours to list
            }
            named = Path.of(uri);
        } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            return reported;
        }
        Path jobDir = named.getParent();
        if (jobDir == null || !Files.isDirectory(jobDir)) {
            return reported;
        }
        Path newest = null;
        long newestN = -1;
        try (Stream<Path> entries = Files.list(jobDir)) {
            for (Path p : (Iterable<Path>) entries::iterator) {
                String f = p.getFileName().toString();
                if (f.matches("chk-\\d{1,18}") && Files.isRegularFile(p.resolve("_metadata"))) {
                    long n = Long.parseLong(f.substring(4));
                    if (n > newestN) {
                        newestN = n;
                        newest = p;
                    }
                }
            }
        } catch (IOException e) {
            return reported;
        }
        return newest == null ? reported : "file:" + newest.toAbsolutePath();
    }
}
