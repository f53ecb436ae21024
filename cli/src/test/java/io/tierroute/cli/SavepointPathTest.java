package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** A savepoint path is sent to the JobManager as the caller meant it, not relative to the JobManager's directory. */
class SavepointPathTest {

    @Test
    void aRelativePathIsMadeAbsoluteAndAUriOrAbsolutePathIsKept() {
        assertThat(SubmitCommand.onTheClusterSide("savepoints/../sp"))
                .isEqualTo(Path.of("sp").toAbsolutePath().normalize().toString());
        assertThat(SubmitCommand.onTheClusterSide("/data/savepoints")).isEqualTo("/data/savepoints");
        assertThat(SubmitCommand.onTheClusterSide("file:/data/savepoints")).isEqualTo("file:/data/savepoints");
        assertThat(SubmitCommand.onTheClusterSide("s3://bucket/savepoints")).isEqualTo("s3://bucket/savepoints");
        assertThat(SubmitCommand.onTheClusterSide(null)).isNull();
    }
}
