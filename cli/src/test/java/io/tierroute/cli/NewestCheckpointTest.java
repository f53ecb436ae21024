package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** cluster down's resume line names the checkpoint the stopped job left, not one Flink named and discarded since. */
class NewestCheckpointTest {

    @Test
    void theNewestCompletedCheckpointBesideTheOneNamedIsTheOneToResumeFrom(@TempDir Path dir) throws Exception {
        Path job = Files.createDirectories(dir.resolve("checkpoints/4f31cbae"));
        Files.createDirectories(job.resolve("chk-6"));
        Files.writeString(job.resolve("chk-6/_metadata"), "m");
        Files.createDirectories(job.resolve("chk-7")); // in progress when the TaskManager stopped: no _metadata
        Files.createDirectories(job.resolve("shared"));
        String named = "file:" + job.resolve("chk-5"); // discarded when chk-6 completed
        assertThat(NewestCheckpoint.after(named)).isEqualTo("file:" + job.resolve("chk-6"));
        Files.createDirectories(job.resolve("chk-10"));
        Files.writeString(job.resolve("chk-10/_metadata"), "m");
        assertThat(NewestCheckpoint.after(named)).as("by number, not by name").isEqualTo("file:" + job.resolve("chk-10"));

        assertThat(NewestCheckpoint.after("s3://bucket/ckpt/4f31cbae/chk-5")).as("remote storage: as named")
                .isEqualTo("s3://bucket/ckpt/4f31cbae/chk-5");
        String gone = "file:" + dir.resolve("nothing/chk-1");
        assertThat(NewestCheckpoint.after(gone)).as("no directory: as named").isEqualTo(gone);
    }
}
