package io.tierroute.deploy.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A state file edited or cut short by hand: 'cluster status' and 'cluster down' name what is wrong, no stack trace. */
class DamagedClusterStateTest {
    private static final String GOOD = """
            marker=tierroute-test
            kafka.bootstrap=127.0.0.1:1
            flink.rest=http\\://127.0.0.1\\:1
            roles=kafka
            kafka.pid=123
            kafka.log=/tmp/kafka.log
            metrics.ports=9249,9250
            """;

    @TempDir
    Path dir;

    private void state(String text) throws Exception {
        Files.writeString(dir.resolve("cluster.properties"), text);
    }

    @Test
    void aClusterWhoseProcessesAreGoneSaysWhyNeitherAnswers() throws Exception {
        state(GOOD);
        LocalCluster.Status s = LocalCluster.status(dir);
        assertThat(s.kafkaAnswers()).isFalse();
        assertThat(s.kafkaError()).isEqualTo("nothing listens at 127.0.0.1:1");
        assertThat(s.flink()).isNull();
        // not "is it running? (bin/tierroute cluster status)": the reader is running 'cluster status'
        assertThat(s.flinkError()).isEqualTo("cannot reach the Flink cluster at http://127.0.0.1:1 (GET /overview): "
                + "connection refused");
    }

    @Test
    void anEmptyFileIsDamaged() throws Exception {
        state("");
        assertThatIllegalStateException().isThrownBy(() -> LocalCluster.status(dir))
                .withMessageContaining("cluster.properties is damaged: marker is missing")
                .withMessageContaining("stop them, then remove the file");
        assertThatIllegalStateException().isThrownBy(() -> LocalCluster.down(dir))
                .withMessageContaining("is damaged: marker is missing");
    }

    @Test
    void aBadOrMissingProcessIdIsNamed() throws Exception {
        state(GOOD.replace("kafka.pid=123", "kafka.pid=abc"));
        assertThatIllegalStateException().isThrownBy(() -> LocalCluster.members(dir))
                .withMessageContaining("is damaged: kafka.pid is not a process id (abc)");
        state(GOOD.replace("kafka.pid=123\n", ""));
        assertThatIllegalStateException().isThrownBy(() -> LocalCluster.down(dir))
                .withMessageContaining("is damaged: kafka.pid is not a process id (missing)");
        state(GOOD.replace("kafka.log=/tmp/kafka.log\n", ""));
        assertThatIllegalStateException().isThrownBy(() -> LocalCluster.members(dir))
                .withMessageContaining("is damaged: kafka.log is missing");
    }

    @Test
    void badMetricsPortsAreNamed() throws Exception {
        state(GOOD.replace("metrics.ports=9249,9250", "metrics.ports=x"));
        assertThatIllegalStateException().isThrownBy(() -> LocalCluster.status(dir))
                .withMessageContaining("is damaged: metrics.ports is not a list of ports (x)");
    }

    @Test
    void aWellFormedFileIsRead() throws Exception {
        state(GOOD);
        org.assertj.core.api.Assertions.assertThat(LocalCluster.members(dir)).singleElement()
                .satisfies(m -> org.assertj.core.api.Assertions.assertThat(m.pid()).isEqualTo(123));
    }

    @Test
    void aDirectoryWhereTheStateFileGoesIsNamed() throws Exception {
        Files.createDirectories(dir.resolve("cluster.properties"));
        assertThatIllegalStateException().isThrownBy(() -> LocalCluster.status(dir))
                .withMessageContaining("cluster.properties is not a file");
    }
}
