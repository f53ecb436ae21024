package io.tierroute.deploy.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

/** Which jars a Flink JVM of the local cluster gets. */
class LocalClasspathTest {

    @Test
    void flinkGetsJarsWithoutWhatTheJobJarBrings() {
        List<Path> all = List.of(Path.of("/m2/flink-runtime-2.2.1.jar"), Path.of("/m2/flink-runtime-web-2.2.1.jar"),
                Path.of("/m2/flink-connector-kafka-5.0.0-2.2.jar"), Path.of("/m2/flink-avro-2.2.1.jar"),
                Path.of("/m2/avro-1.12.2.jar"), Path.of("/m2/kafka-clients-4.2.0.jar"), Path.of("/m2/kafka_2.13-4.2.0.jar"),
                Path.of("/repo/schemas/target/classes"), Path.of("/m2/tierroute-fitter-0.1.0-SNAPSHOT.jar"),
                Path.of("/m2/slf4j-api-2.0.17.jar"));
        assertThat(LocalClasspath.forFlink(all)).containsExactly(Path.of("/m2/flink-runtime-2.2.1.jar"),
                Path.of("/m2/flink-runtime-web-2.2.1.jar"), Path.of("/m2/slf4j-api-2.0.17.jar"));
    }

    @Test
    void withoutTheWebModuleTheClusterCouldNotTakeJars() {
        assertThatThrownBy(() -> LocalClasspath.forFlink(List.of(Path.of("/m2/flink-runtime-2.2.1.jar"))))
                .hasMessageContaining("flink-runtime-web");
    }

    @Test
    void aStaleListNamesTheMissingJar() {
        assertThatThrownBy(() -> LocalClasspath.parse("/nowhere/x.jar"))
                .hasMessageContaining("/nowhere/x.jar, which does not exist");
    }
}
