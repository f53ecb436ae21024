package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.deploy.local.LocalClasspath;
import io.tierroute.deploy.local.LoopbackPorts;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code tierroute} whose list of the local cluster's jars ({@value LocalClasspath#RESOURCE}) names a jar that is gone
 * (a stale build): {@code cluster up} and {@code demo --kafka-port} say so in one line and exit 1. {@code cluster up}
 * called it a defect of tierroute with a stack trace; the demo prefixed {@code java.lang.IllegalStateException:}. Run in
 * a JVM of its own whose class path puts a stale list ahead of the build's.
 */
class StaleRuntimeClasspathTest {

    @TempDir
    Path dir;

    private static final String MISSING = "/no/such/dir/tierroute-gone.jar";

    /** Exit code and everything the command printed (stdout and stderr). */
    private Object[] runWithStaleList(String... args) throws Exception {
        Path resources = Files.createDirectories(dir.resolve("stale"));
        Files.writeString(resources.resolve(LocalClasspath.RESOURCE.substring(1)), MISSING, StandardCharsets.UTF_8);
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", resources + File.pathSeparator + cp, "-Djava.io.tmpdir=" + dir, TierrouteCommand.class.getName()));
        command.addAll(List.of(args));
        Path log = dir.resolve("out.log");
        ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        // The tests' child JVMs get JAVA_TOOL_OPTIONS (cli/pom.xml), and the JVM says so on stderr: the command's own
        // output is what is asserted here, line for line.
        b.environment().remove("JAVA_TOOL_OPTIONS");
        Process p = b.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("still running after 120 s: " + Files.readString(log));
        }
        return new Object[] {p.exitValue(), Files.readString(log)};
    }

    private static final String SAID = "the local cluster's classpath names " + MISSING + ", which does not exist; "
            + "rebuild the tierroute command (mvn -pl cli -am package)";

    @Test
    void clusterUpSaysTheListIsStaleInOneLine() throws Exception {
        Object[] r = runWithStaleList("cluster", "up", "--dir", dir.resolve("cluster").toString(), "--kafka-port",
                Integer.toString(LoopbackPorts.free()), "--metrics-port", "0");
        String output = (String) r[1];
        assertThat(r[0]).as(output).isEqualTo(1);
        assertThat(output.strip()).isEqualTo("tierroute cluster up: " + SAID);
    }

    @Test
    void theDemoOnABrokerProcessSaysItWithoutTheExceptionsClass() throws Exception {
        Object[] r = runWithStaleList("demo", "--kafka-port", Integer.toString(LoopbackPorts.free()), "--workload", "chat",
                "--limit", "300");
        String output = (String) r[1];
        assertThat(r[0]).as(output).isEqualTo(1);
        assertThat(output).contains("tierroute demo: cannot start: " + SAID + "\n")
                .doesNotContain("Exception").doesNotContain("\tat ");
    }
}
