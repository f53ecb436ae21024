package io.tierroute.jobs.bench;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.deploy.local.KafkaBrokerProcess;
import io.tierroute.deploy.local.LoopbackPorts;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * The benchmark's broker: in this JVM ({@link EmbeddedKafka}, the original set-up: its CPU counts in the
 * process figure) or, with {@code -Dbench.broker=process}, a real broker in its own JVM
 * ({@link KafkaBrokerProcess}), so this JVM's CPU is the job's (and the load generator's, idle while measured).
 */
interface BenchBroker extends AutoCloseable {
    String bootstrapServers();

    Admin admin();

    void createTopic(String name, int partitions, Map<String, String> configs);

    /** CPU seconds of the broker's own process, or NaN when it runs in this JVM. */
    double processCpuSeconds();

    @Override
    void close();

    static BenchBroker start() {
        return "process".equals(System.getProperty("bench.broker", "embedded")) ? new Child() : new InProcess();
    }

    /** The in-process broker. */
    final class InProcess implements BenchBroker {
        private final EmbeddedKafka kafka = EmbeddedKafka.start();

        public String bootstrapServers() {
            return kafka.bootstrapServers();
        }

        public Admin admin() {
            return kafka.admin();
        }

        public void createTopic(String name, int partitions, Map<String, String> configs) {
            kafka.createTopic(name, partitions, configs);
        }

        public double processCpuSeconds() {
            return Double.NaN;
        }

        public void close() {
            kafka.close();
        }
    }

    /** A broker in a child JVM (the same settings as the embedded one, EmbeddedKafka.singleBrokerDefaults). */
    final class Child implements BenchBroker {
        private final Path dir;
        private final KafkaBrokerProcess broker;

        Child() {
            try {
                dir = Files.createTempDirectory("tierroute-bench-broker");
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            List<Path> cp = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator)).map(Path::of).toList();
            broker = new KafkaBrokerProcess(new KafkaBrokerProcess.Settings(dir, LoopbackPorts.free(), LoopbackPorts.free(),
                cp, "tierroute-bench:" + dir, Map.of())).start(Duration.ofSeconds(120));
        }

        public String bootstrapServers() {
            return broker.bootstrapServers();
        }

        public Admin admin() {
            Properties p = new Properties();
            p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
            return Admin.create(p);
        }

        public void createTopic(String name, int partitions, Map<String, String> configs) {
            try (Admin admin = admin()) {
                admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs))).all()
                    .get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("could not create topic " + name, e);
            }
        }

        /** utime + stime of the broker process from /proc (clock ticks of 10 ms on Linux). */
        public double processCpuSeconds() {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(broker.jvm().pid()), "stat"));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
            } catch (IOException | RuntimeException e) {
                return Double.NaN;
            }
        }

        public void close() {
            broker.close();
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            } catch (IOException e) {
                System.err.println("could not delete " + dir + ": " + e);
            }
        }
    }
}
