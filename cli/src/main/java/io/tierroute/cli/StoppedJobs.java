package io.tierroute.cli;

import io.tierroute.jobs.WriterIdentity;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The fitting jobs a {@code cluster down} stopped and nothing has resumed since, with the checkpoint each can resume
 * from, kept in the cluster's directory ({@value #FILE}) so that each {@code cluster up} there can print the line that
 * resumes them, on its own ports ({@link #afterDown}). Before, {@code down}'s output was the only record of the
 * checkpoint, and its line named the old cluster's ports; a new {@code up} said "Next: tierroute submit ..." for a fresh
 * start, losing the fitted state.
 */
final class StoppedJobs {

    static final String FILE = "stopped-jobs.properties";

    /**
     * A job stopped with the cluster: its published identity, the arguments Flink showed, its last checkpoint, and
     * whether its Kafka was the cluster's own broker (whose data the next {@code up} serves on its own port).
     */
    record Job(Map<String, String> identity, List<String> arguments, String checkpoint, boolean onTheClustersKafka) {

        /** What it wrote. */
        Writes writes() {
            return Writes.of(identity, onTheClustersKafka);
        }
    }

    /**
     * What a fitting job writes: its parameter topic, on the cluster's own broker (whatever port it has now) or on the
     * Kafka at {@code bootstrap}. Two jobs that write the same are one writer's runs ({@code submit} refuses a second
     * writer of a topic), so a later one takes over from an earlier one's record.
     */
    record Writes(String paramsTopic, String bootstrap, boolean onTheClustersKafka) {

        static Writes of(Map<String, String> identity, boolean onTheClustersKafka) {
            return new Writes(identity.get(WriterIdentity.PARAMS_TOPIC), identity.get(WriterIdentity.BOOTSTRAP_SERVERS),
                    onTheClustersKafka);
        }

        boolean sameAs(Writes other) {
            return paramsTopic != null && paramsTopic.equals(other.paramsTopic)
                    && (onTheClustersKafka ? other.onTheClustersKafka
                    : !other.onTheClustersKafka && java.util.Objects.equals(bootstrap, other.bootstrap));
        }
    }

    private StoppedJobs() {
    }

    /** Records {@code jobs} in {@code dir} (none: the file is removed, so an older record is not shown again). */
    static void write(Path dir, List<Job> jobs) throws IOException {
        Path file = dir.resolve(FILE);
        if (jobs.isEmpty()) {
            Files.deleteIfExists(file);
            return;
        }
        Properties p = new Properties();
        for (int i = 0; i < jobs.size(); i++) {
            Job j = jobs.get(i);
            p.setProperty("job." + i + ".checkpoint", j.checkpoint());
            p.setProperty("job." + i + ".on-the-clusters-kafka", Boolean.toString(j.onTheClustersKafka()));
            for (Map.Entry<String, String> e : j.identity().entrySet()) {
                p.setProperty("job." + i + ".identity." + e.getKey(), e.getValue());
            }
            for (int a = 0; a < j.arguments().size(); a++) {
                p.setProperty("job." + i + ".argument." + a, j.arguments().get(a));
            }
        }
        // Written beside and moved into place (as bench's summary): a write that fails (a full disk, Ctrl-C) leaves the
        // earlier record whole, the only place a job stopped by an earlier down is resumed from.
        Path staging = Files.createTempFile(dir, "." + FILE + "-", ".tmp");
        try {
            try (Writer w = Files.newBufferedWriter(staging, StandardCharsets.UTF_8)) {
                p.store(w, "fitting jobs 'tierroute cluster down' stopped, and the checkpoint each can resume from");
            }
            Files.move(staging, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(staging);
        }
    }

    /**
     * The record a {@code cluster down} leaves: the jobs it stopped, then the jobs of the {@code earlier} record that no
     * fitting job on this cluster's Flink took over since ({@code ranSince}: every fitting job in Flink's job list that
     * completed a checkpoint, whatever its state now; the list starts empty at each {@code up} and keeps an ended job
     * for {@code FlinkSessionCluster.JOB_LIST_RETENTION}). So a job stopped by one down and neither resumed nor replaced
     * before the next stays recorded: before, that next down found no job running and deleted the record, and the
     * only line that resumes it with what it fitted was gone.
     */
    static List<Job> afterDown(List<Job> stoppedNow, List<Job> earlier, List<Writes> ranSince) {
        List<Job> out = new ArrayList<>(stoppedNow);
        for (Job j : earlier) {
            Writes w = j.writes();
            if (ranSince.stream().noneMatch(w::sameAs) && stoppedNow.stream().noneMatch(n -> n.writes().sameAs(w))) {
                out.add(j);
            }
        }
        return out;
    }

    /** The jobs recorded in {@code dir}; none when there is no record or it cannot be read. */
    static List<Job> read(Path dir) {
        Path file = dir.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            return List.of();
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException | IllegalArgumentException e) {
            return List.of();
        }
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; p.containsKey("job." + i + ".checkpoint"); i++) {
            String prefix = "job." + i + ".identity.";
            Map<String, String> identity = new TreeMap<>();
            for (String k : p.stringPropertyNames()) {
                if (k.startsWith(prefix)) {
                    identity.put(k.substring(prefix.length()), p.getProperty(k));
                }
            }
            List<String> arguments = new ArrayList<>();
            for (int a = 0; p.containsKey("job." + i + ".argument." + a); a++) {
                arguments.add(p.getProperty("job." + i + ".argument." + a));
            }
            jobs.add(new Job(identity, arguments, p.getProperty("job." + i + ".checkpoint"),
                    Boolean.parseBoolean(p.getProperty("job." + i + ".on-the-clusters-kafka"))));
        }
        return jobs;
    }

    /**
     * The submit line that resumes {@code job} on the cluster at {@code flink} whose broker is at {@code bootstrap}: the
     * job's Kafka is that broker when it was the stopped cluster's (its data, on the new port), else its own.
     */
    static String resumeLine(Job job, URI flink, String bootstrap) {
        Map<String, String> identity = new TreeMap<>(job.identity());
        if (job.onTheClustersKafka()) {
            identity.put(WriterIdentity.BOOTSTRAP_SERVERS, bootstrap);
        }
        return ResumeCommand.of(flink, identity, job.arguments(), job.checkpoint());
    }
}
