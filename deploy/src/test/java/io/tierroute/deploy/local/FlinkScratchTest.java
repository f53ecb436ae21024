package io.tierroute.deploy.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code cluster up} clears before Flink starts: the scratch files earlier JVMs left (as QA found them under
 * DIR/flink/tmp), nothing of the checkpoints, savepoints, logs, uploaded jars or Kafka's data.
 */
class FlinkScratchTest {

    @TempDir
    Path dir;

    @Test
    void clearsTheScratchDirectoriesOnly() throws Exception {
        Path flink = LocalCluster.flinkDir(dir);
        List<Path> scratch = FlinkSessionCluster.scratchDirs(flink);
        Path tmp = scratch.get(0);
        write(tmp.resolve("flink-rpc-akka_0123.jar"), 1000);
        write(tmp.resolve("jm_abc/blobStorage/job_1/blob_p-1"), 200);
        write(tmp.resolve("tm_taskmanager-1/localState/x"), 30);
        write(tmp.resolve("executionGraphStore-1/g"), 4);
        Files.createDirectories(tmp.resolve("flink-io-1/empty"));
        Files.createSymbolicLink(tmp.resolve("link-to-checkpoints"), flink.resolve("checkpoints"));
        write(scratch.get(1).resolve("flink-web-ui/index.html"), 5);
        List<Path> kept = List.of(flink.resolve("checkpoints/job/chk-3/_metadata"), flink.resolve("savepoints/sp-1/_metadata"),
                flink.resolve("log/jobmanager.log"), flink.resolve("web-upload/flink-web-upload/a_job.jar"),
                flink.resolve("conf/config.yaml"), dir.resolve("kafka/data/meta.properties"), dir.resolve("cluster.properties"));
        for (Path p : kept) {
            write(p, 7);
        }

        assertThat(FlinkScratch.clear(scratch)).isEqualTo(1239);

        for (Path d : scratch) {
            assertThat(d).isEmptyDirectory();
        }
        for (Path p : kept) {
            assertThat(p).as("kept").exists();
        }
        assertThat(FlinkScratch.clear(scratch)).as("nothing left the second time").isZero();
        assertThat(FlinkScratch.clear(List.of(dir.resolve("missing")))).isZero();
    }

    @Test
    void theScratchDirectoriesAreTheOnesFlinkIsConfiguredWith() {
        FlinkSessionCluster cluster = new FlinkSessionCluster(new FlinkSessionCluster.Settings(dir, 1, 2, 1, 1, "1024m",
                List.of(Path.of("flink-runtime-web-2.2.0.jar")), "m", java.util.Map.of()));
        var config = cluster.configuration();
        assertThat(FlinkSessionCluster.scratchDirs(dir).stream().map(Path::toString))
                .containsExactly(config.get("io.tmp.dirs"), config.get("web.tmpdir"));
        assertThat(FlinkSessionCluster.scratchDirs(dir).stream().map(Path::toString))
                .doesNotContain(config.get("web.upload.dir"));
    }

    private static void write(Path file, int bytes) throws Exception {
        Files.createDirectories(file.getParent());
        Files.write(file, new byte[bytes]);
    }
}
