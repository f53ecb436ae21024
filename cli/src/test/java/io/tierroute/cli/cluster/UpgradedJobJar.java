package io.tierroute.cli.cluster;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * A changed build of the job jar, as an upgrade brings one: a copy of the jar in which one class of the
 * job, {@code JobSettings}, is recompiled from its source with one default changed (the job name,
 * which is also the snapshots' {@code producer}). Operators, uids and state serializers are those of
 * the original, as a compatible code change keeps them; a job started from the copy without
 * {@code --job-name} publishes under {@link #UPGRADED_JOB_NAME}, which only the changed class knows.
 */
final class UpgradedJobJar {

    static final String UPGRADED_JOB_NAME = "tierroute-fitting-job-upgraded";
    private static final Path SOURCE = Path.of("../streaming-jobs/src/main/java/io/tierroute/jobs/JobSettings.java");
    private static final String DEFAULT_NAME_LINE = "m.put(\"job-name\", \"tierroute-fitting-job\");";
    private static final String CLASS_DIR = "io/tierroute/jobs/";

    private UpgradedJobJar() {}

    /** Writes the changed copy of {@code jobJar} under {@code dir} and returns it. */
    static Path build(Path jobJar, Path dir) throws IOException {
        String source = Files.readString(SOURCE, StandardCharsets.UTF_8);
        if (!source.contains(DEFAULT_NAME_LINE)) {
            throw new IllegalStateException(SOURCE + " no longer has the line " + DEFAULT_NAME_LINE + "; update this test");
        }
        Path src = dir.resolve("src/" + CLASS_DIR + "JobSettings.java");
        Path classes = dir.resolve("classes");
        Files.createDirectories(src.getParent());
        Files.createDirectories(classes);
        Files.writeString(src, source.replace(DEFAULT_NAME_LINE,
                "m.put(\"job-name\", \"" + UPGRADED_JOB_NAME + "\");"), StandardCharsets.UTF_8);

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new IllegalStateException("no Java compiler in this JVM (a JRE?); the tests need a JDK 17");
        }
        StringWriter diagnostics = new StringWriter();
        boolean ok = javac.getTask(diagnostics, null, null,
                List.of("--release", "17", "-proc:none", "-cp", jobJar + java.io.File.pathSeparator
                        + System.getProperty("java.class.path"), "-d", classes.toString()),
                null, javac.getStandardFileManager(null, null, StandardCharsets.UTF_8).getJavaFileObjects(src)).call();
        if (!ok) {
            throw new IllegalStateException("could not compile the changed JobSettings:\n" + diagnostics);
        }

        Path upgraded = dir.resolve("tierroute-streaming-jobs-upgraded-job.jar");
        Files.copy(jobJar, upgraded, StandardCopyOption.REPLACE_EXISTING);
        int replaced = 0;
        try (FileSystem jar = FileSystems.newFileSystem(URI.create("jar:" + upgraded.toUri()), Map.of());
             Stream<Path> compiled = Files.list(classes.resolve(CLASS_DIR))) {
            for (Path c : compiled.toList()) {
                Path entry = jar.getPath(CLASS_DIR + c.getFileName());
                if (!Files.exists(entry)) {
                    throw new IllegalStateException("the job jar has no " + entry + " to replace");
                }
                Files.copy(c, entry, StandardCopyOption.REPLACE_EXISTING);
                replaced++;
            }
        }
        if (replaced == 0) {
            throw new IllegalStateException("javac wrote no class for " + src);
        }
        return upgraded;
    }
}
