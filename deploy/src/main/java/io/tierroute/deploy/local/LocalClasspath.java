package io.tierroute.deploy.local;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The jars the local cluster's processes run on. There is no Flink or Kafka distribution here: the
 * processes run on the Maven-resolved jars of the {@code tierroute} command itself, whose build writes
 * their list ({@code mvn dependency:build-classpath}, absolute paths into the local Maven repository)
 * to the resource {@value #RESOURCE}.
 *
 * <p>The Kafka broker gets the whole list. A Flink JVM gets it without the jars a job jar brings itself
 * ({@link #forFlink}): Flink loads {@code org.apache.flink.*} parent-first, so a Kafka connector or
 * flink-avro on the cluster's classpath would bind to the cluster's kafka-clients and Avro while the
 * job's own classes bind to the job jar's copies (a loader-constraint error at the first record). A
 * Flink distribution's {@code lib/} does not hold them either.
 */
public final class LocalClasspath {

    /** Classpath resource written by the cli module's build: entries separated by the path separator. */
    public static final String RESOURCE = "/tierroute-runtime.classpath";

    /** File-name prefixes of jars a Flink JVM must not have (they belong to the job jar). */
    static final List<String> NOT_FOR_FLINK = List.of("tierroute-", "flink-connector-kafka", "flink-avro", "avro-",
            "kafka", "junit", "opentest4j");

    private LocalClasspath() {}

    /** The entries of {@link #RESOURCE}, as found by {@code anchor}'s class loader. */
    public static List<Path> fromResource(Class<?> anchor) {
        try (InputStream in = anchor.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the resource " + RESOURCE + " is missing: build the tierroute command "
                        + "with Maven (bin/tierroute does), which writes the list of jars the local cluster runs on");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("could not read " + RESOURCE + ": " + e.getMessage(), e);
        }
    }

    /** Entries of a classpath string; each must exist (a stale list names the missing jar). */
    static List<Path> parse(String classpath) {
        List<Path> entries = Arrays.stream(classpath.trim().split(File.pathSeparator))
                .filter(s -> !s.isBlank()).map(Path::of).toList();
        for (Path p : entries) {
            if (!Files.exists(p)) {
                // exists() is false on a path this user may not look at either: say which of the two it is
                throw new IllegalStateException("the local cluster's classpath names " + p + (Files.notExists(p)
                        ? ", which does not exist; rebuild the tierroute command (mvn -pl cli -am package)"
                        : ", which this user cannot read (permission denied on it or a directory above it); run as its "
                                + "owner, or build the tierroute command as this user"));
            }
        }
        if (entries.isEmpty()) {
            throw new IllegalStateException("the local cluster's classpath is empty");
        }
        return entries;
    }

    /** The entries a JobManager or TaskManager runs on: jars only, without the job jar's own libraries. */
    public static List<Path> forFlink(List<Path> all) {
        List<Path> flink = all.stream().filter(p -> {
            String name = p.getFileName().toString().toLowerCase(Locale.ROOT);
            return name.endsWith(".jar") && NOT_FOR_FLINK.stream().noneMatch(name::startsWith);
        }).toList();
        if (flink.stream().noneMatch(p -> p.getFileName().toString().startsWith("flink-runtime-web"))) {
            throw new IllegalStateException("flink-runtime-web is not on the local cluster's classpath; "
                    + "the session cluster needs it for jar uploads and its web UI");
        }
        return flink;
    }
}
