package io.tierroute.cli.cluster;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Another application's Flink job, as one that shares a session cluster with the fitting job: {@value #NAME} holds
 * one task slot (parallelism 1) until it is cancelled, reading a sequence of numbers slowly (a map sleeps 100 ms per
 * number, so it costs no CPU to speak of) into a discarding sink. Compiled here against the test's Flink, which the
 * cluster provides at run time.
 */
final class SlotHolderJar {

    static final String NAME = "slot-holder";
    static final String MAIN = "other.SlotHolder";

    private static final String SOURCE = """
            package other;

            import org.apache.flink.api.common.functions.MapFunction;
            import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
            import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

            public final class SlotHolder {
                public static void main(String[] args) throws Exception {
                    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
                    env.setParallelism(1);
                    env.fromSequence(0, Long.MAX_VALUE).map(new Slow()).sinkTo(new DiscardingSink<>());
                    env.execute("%s");
                }

                static final class Slow implements MapFunction<Long, Long> {
                    @Override
                    public Long map(Long v) throws Exception {
                        Thread.sleep(100);
                        return v;
                    }
                }
            }
            """.formatted(NAME);

    private SlotHolderJar() {}

    /** Writes the jar under {@code dir} and returns it. */
    static Path build(Path dir) throws IOException {
        Path src = dir.resolve("src/other/SlotHolder.java");
        Path classes = dir.resolve("classes");
        Files.createDirectories(src.getParent());
        Files.createDirectories(classes);
        Files.writeString(src, SOURCE, StandardCharsets.UTF_8);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new IllegalStateException("no Java compiler in this JVM (a JRE?); the tests need a JDK 17");
        }
        StringWriter diagnostics = new StringWriter();
        boolean ok = javac.getTask(diagnostics, null, null, List.of("--release", "17", "-proc:none", "-cp",
                        System.getProperty("java.class.path"), "-d", classes.toString()), null,
                javac.getStandardFileManager(null, null, StandardCharsets.UTF_8).getJavaFileObjects(src)).call();
        if (!ok) {
            throw new IllegalStateException("could not compile " + MAIN + ":\n" + diagnostics);
        }
        Path jar = dir.resolve("slot-holder.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
             Stream<Path> compiled = Files.walk(classes)) {
            for (Path c : compiled.filter(Files::isRegularFile).toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(c).toString().replace('\\', '/')));
                Files.copy(c, out);
                out.closeEntry();
            }
        }
        return jar;
    }
}
