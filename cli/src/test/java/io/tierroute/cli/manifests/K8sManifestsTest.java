package io.tierroute.cli.manifests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tierroute.cli.manifests.Manifests.Doc;
import io.tierroute.jobs.FittingJobMain;
import io.tierroute.jobs.JobSettings;
import io.tierroute.jobs.KafkaWiring;
import io.tierroute.schemas.Topics;
import io.tierroute.selector.config.AccessSettings;
import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.config.SelectorConfig;
import io.tierroute.selector.config.ServerSettings;
import io.tierroute.selector.server.SelectorServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.HighAvailabilityOptions;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Parses every manifest under {@code deploy/k8s} and checks what matters against the code's own
 * constants and parsers, so the manifests cannot drift from the code: kinds and API versions, image
 * names and tags (project and Flink versions), topics vs {@code Topics.specs()}, the job's main class
 * and arguments ({@code JobSettings.parse}) vs the Flink configuration, the selector's ConfigMap
 * ({@code ConfigLoader}), ports, and probe and metrics paths answered by a real {@code SelectorServer}.
 */
class K8sManifestsTest {

    static final String JOB = "tierroute-fitting-job";
    static final String SELECTOR = "tierroute-selector";

    static Path root;
    static List<Doc> docs;
    static String version;

    @BeforeAll
    static void load() throws IOException {
        root = Manifests.root();
        docs = Manifests.load(root.resolve("deploy/k8s"));
        Properties p = new Properties();
        try (InputStream in = K8sManifestsTest.class.getResourceAsStream("/tierroute-version.properties")) {
            p.load(in);
        }
        version = p.getProperty("version");
        assertThat(version).as("the cli's filtered project version").doesNotContain("${");
    }

    @Test
    void everyObjectHasAKnownKindAndApiVersion() {
        Map<String, String> expected = Map.of(
            "FlinkDeployment", "flink.apache.org/v1beta1",
            "KafkaTopic", "kafka.strimzi.io/v1",
            "ConfigMap", "v1", "Service", "v1", "PersistentVolumeClaim", "v1",
            "Deployment", "apps/v1", "CronJob", "batch/v1",
            "ServiceMonitor", "monitoring.coreos.com/v1", "PodMonitor", "monitoring.coreos.com/v1",
            "NetworkPolicy", "networking.k8s.io/v1");
        Map<String, Integer> counts = new TreeMap<>();
        for (Doc d : docs) {
            assertThat(expected).as("%s in %s", d.kind(), d.file().getFileName()).containsKey(d.kind());
            assertThat(d.apiVersion()).as("apiVersion of %s %s", d.kind(), d.name()).isEqualTo(expected.get(d.kind()));
            assertThat(d.name()).as("metadata.name of a %s", d.kind()).isNotBlank();
            counts.merge(d.kind(), 1, Integer::sum);
        }
        assertThat(counts).containsEntry("FlinkDeployment", 1).containsEntry("Deployment", 1).containsEntry("NetworkPolicy", 1)
            .containsEntry("ServiceMonitor", 1).containsEntry("KafkaTopic", Topics.specs().size());
    }

    @Test
    void kafkaTopicsAreExactlyTheCodesTopicSpecs() {
        Map<String, Topics.Spec> specs = new LinkedHashMap<>();
        Topics.specs().forEach(s -> specs.put(s.name(), s));
        Set<String> seen = new TreeSet<>();
        String cluster = kafkaClusterOfBootstrap();
        for (JsonNode t : Manifests.all(docs, "KafkaTopic")) {
            String name = t.path("spec").path("topicName").asText(t.path("metadata").path("name").asText());
            assertThat(specs).as("KafkaTopic %s is not in Topics.specs()", name).containsKey(name);
            Topics.Spec spec = specs.get(name);
            assertThat(t.path("spec").path("partitions").asInt()).as("%s partitions", name).isEqualTo(spec.partitions());
            Map<String, String> config = new HashMap<>();
            t.path("spec").path("config").fields().forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
            assertThat(config).as("%s config", name).isEqualTo(spec.configs());
            assertThat("compact".equals(config.get("cleanup.policy"))).as("%s compacted", name)
                .isEqualTo(Topics.isCompacted(name));
            assertThat(t.path("spec").path("replicas").asInt()).as("%s replicas", name).isGreaterThanOrEqualTo(1);
            assertThat(t.path("metadata").path("labels").path("strimzi.io/cluster").asText())
                .as("%s belongs to the Kafka cluster the selector and the job connect to", name).isEqualTo(cluster);
            seen.add(name);
        }
        assertThat(seen).containsExactlyInAnyOrderElementsOf(specs.keySet());
    }

    /** The params topic's retention: a trim the CLI accepts, of the selector's image, on the selector's Kafka. */
    @Test
    void paramsTrimCronJobRunsATrimTheCliAccepts() {
        JsonNode cron = Manifests.one(docs, "CronJob", "tierroute-params-trim");
        assertThat(cron.path("spec").path("concurrencyPolicy").asText()).isEqualTo("Forbid");
        JsonNode container = cron.path("spec").path("jobTemplate").path("spec").path("template").path("spec")
            .path("containers").get(0);
        assertThat(container.path("image").asText()).isEqualTo("tierroute/selector:" + version);
        List<String> args = new java.util.ArrayList<>();
        container.path("args").forEach(a -> args.add(a.asText()));
        picocli.CommandLine.ParseResult parsed = io.tierroute.cli.TierrouteCommand.commandLine()
            .parseArgs(args.toArray(String[]::new));
        picocli.CommandLine.ParseResult trim = parsed.subcommand().subcommand();
        assertThat(trim.commandSpec().name()).isEqualTo("trim");
        assertThat(trim.matchedOptionValue("--all-scopes", false)).isTrue();
        assertThat(trim.matchedOptionValue("--keep", 0L)).isGreaterThanOrEqualTo(
            (long) io.tierroute.schemas.snapshot.SnapshotRetention.MIN_KEEP);
        assertThat(trim.matchedOptionValue("--bootstrap", ""))
            .isEqualTo(selectorConfig().kafka().bootstrapServers());
    }

    @Test
    void flinkDeploymentRunsTheJobMainWithArgumentsTheJobAccepts() throws Exception {
        JsonNode fd = Manifests.one(docs, "FlinkDeployment", JOB);
        JsonNode spec = fd.path("spec");
        assertThat(spec.path("image").asText()).isEqualTo("tierroute/fitting-job:" + version);
        String[] flink = EnvironmentInformation.getVersion().split("\\.");
        assertThat(spec.path("flinkVersion").asText()).as("the Flink the job is built against")
            .isEqualTo("v" + flink[0] + "_" + flink[1]);

        JsonNode job = spec.path("job");
        assertThat(job.path("entryClass").asText()).isEqualTo(FittingJobMain.class.getName());
        assertThat(Class.forName(job.path("entryClass").asText()).getMethod("main", String[].class)).isNotNull();
        assertThat(job.path("upgradeMode").asText()).isEqualTo("savepoint");
        assertThat(job.path("state").asText()).isEqualTo("running");
        List<String> args = new ArrayList<>();
        job.path("args").forEach(a -> args.add(a.asText()));
        JobSettings settings = JobSettings.parse(args.toArray(String[]::new));

        Map<String, String> flinkConf = new HashMap<>();
        spec.path("flinkConfiguration").fields().forEachRemaining(e -> flinkConf.put(e.getKey(), e.getValue().asText()));
        Configuration cluster = Configuration.fromMap(flinkConf);
        // The job sets these itself (KafkaWiring.configuration), so the cluster's must agree with them.
        Configuration jobConf = KafkaWiring.configuration(settings);
        assertThat(cluster.get(CheckpointingOptions.CHECKPOINTING_INTERVAL)).as("execution.checkpointing.interval")
            .isEqualTo(jobConf.get(CheckpointingOptions.CHECKPOINTING_INTERVAL));
        // Snapshots commit with checkpoints (exactly-once sink): the interval is part of the time until fitted
        // parameters are live, whose p99 target is 2 s at the default 1 s publish cadence.
        assertThat(settings.checkpointInterval()).as("--checkpoint-interval, part of the parameters' latency")
            .isLessThanOrEqualTo(java.time.Duration.ofMillis(500));
        assertThat(job.path("parallelism").asInt()).isEqualTo(settings.parallelism());
        int slots = cluster.get(TaskManagerOptions.NUM_TASK_SLOTS) * spec.path("taskManager").path("replicas").asInt(1);
        assertThat(slots).as("task slots for the job's parallelism").isGreaterThanOrEqualTo(settings.parallelism());

        String mount = "file://" + volumeMountPath(spec.path("podTemplate"), "flink-data");
        String checkpoints = cluster.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY);
        String savepoints = cluster.get(CheckpointingOptions.SAVEPOINT_DIRECTORY);
        assertThat(checkpoints).as("checkpoints on the durable volume").startsWith(mount + "/");
        assertThat(savepoints).as("savepoints on the durable volume").startsWith(mount + "/");
        assertThat(cluster.get(HighAvailabilityOptions.HA_STORAGE_PATH)).startsWith(mount + "/");
        if (settings.checkpointDir() != null) {
            assertThat(settings.checkpointDir()).isEqualTo(checkpoints);
        }
        String claim = volume(spec.path("podTemplate"), "flink-data").path("persistentVolumeClaim").path("claimName").asText();
        JsonNode pvc = Manifests.one(docs, "PersistentVolumeClaim", claim);
        assertThat(pvc.path("spec").path("accessModes").toString()).as("shared by JobManager and TaskManagers")
            .contains("ReadWriteMany");

        assertThat(settings.bootstrapServers()).as("the job and the selector use the same brokers")
            .isEqualTo(selectorConfig().kafka().bootstrapServers());
        assertThat(spec.path("jobManager").path("resource").path("memory").asText()).isNotBlank();
        assertThat(spec.path("taskManager").path("resource").path("memory").asText()).isNotBlank();

        // The image the README tells to build puts the job jar where jarURI points.
        String dockerfile = Files.readString(root.resolve("deploy/k8s/images/fitting-job.Dockerfile"));
        assertThat(dockerfile).contains("FROM flink:" + EnvironmentInformation.getVersion() + "-java17")
            .contains("COPY streaming-jobs/target/tierroute-streaming-jobs-" + version + "-job.jar "
                + job.path("jarURI").asText().replace("local://", ""));
    }

    /**
     * A Kafka outage fails the job about once a minute (its transactional producer's InitProducerId times out): the
     * restart strategy of the Kubernetes job and of the local cluster ({@code cluster up}) must outlast a long one, so
     * exponential delay with no attempt cap (Flink's default, unbounded: a cap of 20, counted afresh only after the
     * reset threshold or never, ended the job some 20 failures into an outage) and a back-off that comes back down.
     */
    @Test
    void theFittingJobsRestartsOutlastALongKafkaOutage() {
        Map<String, String> k8s = new HashMap<>();
        Manifests.one(docs, "FlinkDeployment", JOB).path("spec").path("flinkConfiguration").fields()
            .forEachRemaining(e -> k8s.put(e.getKey(), e.getValue().asText()));
        Map<String, String> local = new io.tierroute.deploy.local.FlinkSessionCluster(
            new io.tierroute.deploy.local.FlinkSessionCluster.Settings(Path.of("tierroute-cluster", "flink"), 8081, 6123, 1,
                2, "1024m", List.of(Path.of("flink-runtime-web-" + EnvironmentInformation.getVersion() + ".jar")), "m",
                Map.of())).configuration();
        for (Map.Entry<String, Map<String, String>> c : Map.of("fitting-job.yaml", k8s, "the local cluster", local).entrySet()) {
            String what = c.getKey();
            for (String key : c.getValue().keySet()) {
                if (key.startsWith("restart-strategy.")) { // a misspelt key is ignored by Flink without a word
                    assertThat(List.of(RestartStrategyOptions.RESTART_STRATEGY,
                        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF,
                        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF,
                        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER,
                        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_JITTER_FACTOR,
                        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD)
                        .stream().map(o -> o.key())).as("%s: %s is a key of Flink's exponential-delay strategy", what, key)
                        .contains(key);
                }
            }
            Configuration conf = Configuration.fromMap(c.getValue());
            assertThat(conf.get(RestartStrategyOptions.RESTART_STRATEGY)).as(what).isEqualTo("exponential-delay");
            assertThat(conf.get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS))
                .as("%s: attempts before the back-off resets: unbounded", what).isEqualTo(Integer.MAX_VALUE);
            java.time.Duration max = conf.get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF);
            assertThat(max).as("%s: back on its feet within a minute of Kafka's return", what)
                .isLessThanOrEqualTo(java.time.Duration.ofMinutes(1));
            assertThat(c.getValue()).as(what).containsKey(
                RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD.key());
            assertThat(conf.get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD))
                .as("%s: the back-off starts over after a while without failures", what)
                .isGreaterThan(max).isLessThanOrEqualTo(java.time.Duration.ofMinutes(30));
        }
    }

    /**
     * The Flink image runs as {@code flink}, uid and gid 9999 (the official image's {@code groupadd --gid=9999 flink}):
     * without the pods' {@code fsGroup} a Secret mounted 0440 is root's, unreadable to it. {@code OnRootMismatch}, or
     * the kubelet re-owns every file of the state volume at each pod start where the storage supports it.
     */
    @Test
    void theFlinkPodsRunWithTheImagesGroupAsFsGroup() throws IOException {
        JsonNode pod = Manifests.one(docs, "FlinkDeployment", JOB).path("spec").path("podTemplate").path("spec");
        assertThat(pod.path("securityContext").path("fsGroup").asInt()).isEqualTo(9999);
        assertThat(pod.path("securityContext").path("fsGroupChangePolicy").asText())
            .as("not a recursive re-own of the whole checkpoint/HA volume at every pod start").isEqualTo("OnRootMismatch");
        assertThat(Files.readString(root.resolve("deploy/k8s/images/fitting-job.Dockerfile")))
            .as("the official image, whose flink user is 9999, run as it is").contains("FROM flink:").doesNotContain("USER");
    }

    /**
     * The Kafka client Secret of the README's "Kafka security" (its {@code kubectl create secret} and mount): every
     * {@code *.location} of {@code examples/kafka-client-sasl-ssl.properties}, commented variants too, names one of its
     * keys under its mount (the trust store sat under the ConfigMap's {@code /etc/tierroute}, which holds only
     * selector.yaml), and {@code fitting-job.yaml} mounts it in both JobManager and TaskManagers (the pod template): the
     * TaskManagers' Kafka clients open the trust store.
     */
    @Test
    void theExampleClientSettingsNameFilesOfTheDocumentedSecretWhereItIsMounted() throws IOException {
        String readme = Files.readString(root.resolve("deploy/k8s/README.md"));
        java.util.regex.Matcher create = java.util.regex.Pattern.compile(
            "kubectl -n tierroute create secret generic (\\S+)((?:\\\\\\n|[^\\n])*)").matcher(readme);
        String secret = null;
        Set<String> keys = new TreeSet<>();
        while (create.find()) {
            if (create.group(1).equals("tierroute-kafka-client")) {
                secret = create.group(1);
                java.util.regex.Matcher key = java.util.regex.Pattern.compile("--from-file=([^=\\s]+)=").matcher(create.group(2));
                while (key.find()) {
                    keys.add(key.group(1));
                }
            }
        }
        assertThat(secret).as("the README creates the Kafka client Secret").isNotNull();
        assertThat(keys).contains("client.properties");

        java.util.regex.Matcher block = java.util.regex.Pattern.compile("```yaml\n(.*?)```", java.util.regex.Pattern.DOTALL)
            .matcher(readme);
        String mountPath = null;
        while (block.find() && mountPath == null) {
            if (block.group(1).contains("secretName: " + secret)) {
                JsonNode snippet = Manifests.yaml(block.group(1));
                String volume = snippet.path("volumes").get(0).path("name").asText();
                assertThat(snippet.path("volumes").get(0).path("secret").path("secretName").asText()).isEqualTo(secret);
                for (JsonNode m : snippet.path("volumeMounts")) {
                    if (m.path("name").asText().equals(volume)) {
                        mountPath = m.path("mountPath").asText();
                    }
                }
            }
        }
        assertThat(mountPath).as("the README's mount of %s", secret).isNotNull();

        List<String> locations = new ArrayList<>();
        java.util.regex.Pattern location = java.util.regex.Pattern.compile("^#?\\s*([a-z.]+\\.location)\\s*=\\s*(\\S+)");
        for (String line : Files.readAllLines(root.resolve("examples/kafka-client-sasl-ssl.properties"))) {
            java.util.regex.Matcher m = location.matcher(line);
            if (m.find()) {
                String path = m.group(2);
                locations.add(path);
                assertThat(path).as("%s under the mount of %s", m.group(1), secret).startsWith(mountPath + "/");
                String file = path.substring(mountPath.length() + 1);
                if (line.startsWith("#")) { // a variant (mTLS): the README says how to add it
                    assertThat(readme).as("%s (%s): the README adds it to %s", m.group(1), path, secret)
                        .contains("--from-file=" + file + "=");
                } else {
                    assertThat(keys).as("%s (%s): a key the README puts into %s", m.group(1), path, secret).contains(file);
                }
            }
        }
        assertThat(locations).as("the example's trust store").anyMatch(l -> l.endsWith("kafka-truststore.p12"));

        JsonNode podTemplate = Manifests.one(docs, "FlinkDeployment", JOB).path("spec").path("podTemplate");
        String flinkVolume = null;
        for (JsonNode v : podTemplate.path("spec").path("volumes")) {
            if (v.path("secret").path("secretName").asText().equals(secret)) {
                flinkVolume = v.path("name").asText();
                assertThat(v.path("secret").path("optional").asBoolean()).as("pods start before the Secret exists").isTrue();
            }
        }
        assertThat(flinkVolume).as("fitting-job.yaml's pod template mounts %s", secret).isNotNull();
        assertThat(volumeMountPath(podTemplate, flinkVolume)).isEqualTo(mountPath);
        assertThat(Manifests.one(docs, "FlinkDeployment", JOB).path("spec").path("jobManager").has("podTemplate")
            || Manifests.one(docs, "FlinkDeployment", JOB).path("spec").path("taskManager").has("podTemplate"))
            .as("no per-type pod template that could drop the mount for one of them").isFalse();
    }

    @Test
    void selectorConfigMapLoadsAndTheDeploymentServesItsPort() throws IOException {
        SelectorConfig cfg = selectorConfig();
        assertThat(cfg.server().port()).as("the selector's default port").isEqualTo(ServerSettings.DEFAULTS.port());
        assertThat(cfg.server().host()).as("reachable from the Service").isEqualTo("0.0.0.0");
        assertThat(cfg.kafka()).isNotNull();

        JsonNode pod = Manifests.one(docs, "Deployment", SELECTOR).path("spec").path("template").path("spec");
        JsonNode c = pod.path("containers").get(0);
        assertThat(c.path("image").asText()).isEqualTo("tierroute/selector:" + version);
        JsonNode port = c.path("ports").get(0);
        assertThat(port.path("containerPort").asInt()).isEqualTo(cfg.server().port());
        List<String> args = new ArrayList<>();
        c.path("args").forEach(a -> args.add(a.asText()));
        assertThat(args).startsWith("selector", "--config");
        Path configFile = Path.of(args.get(2));
        String mount = null;
        for (JsonNode m : c.path("volumeMounts")) {
            JsonNode v = volume(pod, m.path("name").asText());
            if (v.path("configMap").path("name").asText().equals(SELECTOR)) {
                mount = m.path("mountPath").asText();
            }
        }
        assertThat(mount).as("the ConfigMap is mounted").isNotNull();
        assertThat(configFile).isEqualTo(Path.of(mount, "selector.yaml"));
        assertThat(c.path("resources").path("requests").path("memory").asText()).isNotBlank();
        assertThat(c.path("env").findValuesAsText("name")).contains(cfg.adminTokenEnv());
        // the image's user (selector.Dockerfile), and a group that can read Secret files mounted 0440
        assertThat(Files.readString(root.resolve("deploy/k8s/images/selector.Dockerfile"))).contains("USER 65532:65532");
        assertThat(pod.path("securityContext").path("runAsUser").asInt()).isEqualTo(65532);
        assertThat(pod.path("securityContext").path("fsGroup").asInt()).isEqualTo(65532);
        assertThat(pod.path("securityContext").path("runAsNonRoot").asBoolean()).isTrue();
        assertThat(c.path("securityContext").path("allowPrivilegeEscalation").asBoolean(true)).isFalse();

        JsonNode svc = Manifests.one(docs, "Service", SELECTOR).path("spec");
        JsonNode sp = svc.path("ports").get(0);
        assertThat(sp.path("targetPort").asText()).isIn(port.path("name").asText(), String.valueOf(cfg.server().port()));
        JsonNode podLabels = Manifests.one(docs, "Deployment", SELECTOR).path("spec").path("template").path("metadata")
            .path("labels");
        svc.path("selector").fields().forEachRemaining(e ->
            assertThat(podLabels.path(e.getKey()).asText()).as("Service selector %s", e.getKey()).isEqualTo(e.getValue().asText()));

        // The real server answers the probe paths and the scrape path.
        String readiness = c.path("readinessProbe").path("httpGet").path("path").asText();
        String liveness = c.path("livenessProbe").path("httpGet").path("path").asText();
        for (String probe : List.of("readinessProbe", "livenessProbe")) {
            assertThat(c.path(probe).path("httpGet").path("port").asText()).as(probe + " port")
                .isIn(port.path("name").asText(), String.valueOf(cfg.server().port()));
        }
        // A CPU request (the route path is CPU-bound) and a memory limit no lower than the request
        // (a container over its limit is killed, one over its request only evicted first).
        assertThat(c.path("resources").path("requests").path("cpu").asText()).isNotBlank();
        assertThat(bytes(c.path("resources").path("limits").path("memory").asText()))
            .isGreaterThanOrEqualTo(bytes(c.path("resources").path("requests").path("memory").asText()));
        // The image runs what the Deployment's args name: the shaded cli jar and its `selector` command.
        String dockerfile = Files.readString(root.resolve("deploy/k8s/images/selector.Dockerfile"));
        assertThat(dockerfile).contains("COPY cli/target/tierroute.jar ").contains("\"-jar\"")
            .contains("EXPOSE " + cfg.server().port());
        JsonNode monitor = Manifests.one(docs, "ServiceMonitor", SELECTOR).path("spec");
        JsonNode endpoint = monitor.path("endpoints").get(0);
        String metricsPath = endpoint.path("path").asText();
        assertThat(endpoint.path("port").asText()).isEqualTo(sp.path("name").asText());
        monitor.path("selector").path("matchLabels").fields().forEachRemaining(e ->
            assertThat(Manifests.one(docs, "Service", SELECTOR).path("metadata").path("labels").path(e.getKey()).asText())
                .as("ServiceMonitor selects the Service by %s", e.getKey()).isEqualTo(e.getValue().asText()));
        JsonNode scrape = Manifests.yaml(Files.readString(root.resolve("deploy/prometheus/prometheus.yml")));
        for (JsonNode job : scrape.path("scrape_configs")) {
            if (job.path("job_name").asText().equals("tierroute-selector")) {
                assertThat(metricsPath).as("same path as deploy/prometheus/prometheus.yml")
                    .isEqualTo(job.path("metrics_path").asText("/metrics"));
            }
        }

        // Reads and the data plane are closed, their tokens from one Secret, the read one also the ServiceMonitor's.
        assertThat(cfg.access().read()).isEqualTo(AccessSettings.Mode.TOKEN);
        assertThat(cfg.access().data()).isEqualTo(AccessSettings.Mode.TOKEN);
        JsonNode readRef = secretRef(c, cfg.access().readTokenEnv());
        JsonNode dataRef = secretRef(c, cfg.access().dataTokenEnv());
        assertThat(readRef.path("name").asText()).isEqualTo(dataRef.path("name").asText());
        assertThat(readRef.path("key").asText()).isNotEqualTo(dataRef.path("key").asText());
        JsonNode auth = endpoint.path("authorization");
        assertThat(auth.path("type").asText()).isEqualTo("Bearer");
        assertThat(auth.path("credentials")).as("the ServiceMonitor sends the read token").isEqualTo(readRef);

        SelectorConfig local = cfg.withKafka(null).withServer(cfg.server().withHost("127.0.0.1").withPort(0));
        Map<String, String> env = Map.of(cfg.access().readTokenEnv(), "read-t0ken", cfg.access().dataTokenEnv(),
            "data-t0ken");
        try (SelectorServer server = SelectorServer.startWith(local, env::get, false)) {
            HttpClient http = HttpClient.newHttpClient();
            for (String path : List.of(readiness, liveness, metricsPath)) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(server.uri().resolve(path))
                    .header("Authorization", "Bearer read-t0ken").GET().build(), HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).as("GET %s on the real selector", path).isEqualTo(200);
                if (path.equals(metricsPath)) {
                    assertThat(r.body()).as("Prometheus text with the selector's metrics").contains("tierroute_");
                }
            }
            for (String probe : List.of(readiness, liveness)) { // the kubelet sends no token
                assertThat(http.send(HttpRequest.newBuilder(server.uri().resolve(probe)).GET().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode()).as("GET %s without a token", probe).isEqualTo(200);
            }
            assertThat(http.send(HttpRequest.newBuilder(server.uri().resolve(metricsPath)).GET().build(),
                HttpResponse.BodyHandlers.discarding()).statusCode()).as("/metrics without the read token").isEqualTo(401);
            assertThat(http.send(HttpRequest.newBuilder(server.uri().resolve("/v1/telemetry"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode()).as("the data plane without its token").isEqualTo(401);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * The replicas' direct path: the selector listens on a UDP container port, and each peer names a headless Service
     * that resolves to every selector pod (ready or not) on that port; the key comes from the tokens' Secret.
     */
    @Test
    void theReplicasDirectPathReachesEveryPodThroughAHeadlessService() throws IOException {
        KafkaSettings.Direct direct = selectorConfig().kafka().replicaSync().direct();
        assertThat(direct.enabled()).isTrue();
        JsonNode deployment = Manifests.one(docs, "Deployment", SELECTOR).path("spec");
        JsonNode c = deployment.path("template").path("spec").path("containers").get(0);
        JsonNode port = null;
        for (JsonNode p : c.path("ports")) {
            if (p.path("containerPort").asInt() == direct.listen().port()) {
                port = p;
            }
        }
        assertThat(port).as("a container port for %s", direct.listen()).isNotNull();
        assertThat(port.path("protocol").asText()).isEqualTo("UDP");
        assertThat(direct.listen().host()).as("every pod interface").isEqualTo("0.0.0.0");
        JsonNode podLabels = deployment.path("template").path("metadata").path("labels");
        for (KafkaSettings.HostPort peer : direct.peers()) {
            JsonNode svc = Manifests.one(docs, "Service", peer.host().split("\\.")[0]).path("spec");
            assertThat(svc.path("clusterIP").asText()).as("headless: its name resolves to the pods").isEqualTo("None");
            assertThat(svc.path("publishNotReadyAddresses").asBoolean()).as("a starting replica is heard").isTrue();
            svc.path("selector").fields().forEachRemaining(e -> assertThat(podLabels.path(e.getKey()).asText())
                .as("selects the selector pods by %s", e.getKey()).isEqualTo(e.getValue().asText()));
            JsonNode sp = svc.path("ports").get(0);
            assertThat(sp.path("port").asInt()).isEqualTo(peer.port()).isEqualTo(direct.listen().port());
            assertThat(sp.path("protocol").asText()).isEqualTo("UDP");
            assertThat(sp.path("targetPort").asText()).isIn(port.path("name").asText(),
                String.valueOf(direct.listen().port()));
        }
        SelectorConfig cfg = selectorConfig();
        JsonNode keyRef = secretRef(c, direct.keyEnv());
        assertThat(keyRef.path("name").asText()).as("the tokens' Secret")
            .isEqualTo(secretRef(c, cfg.access().dataTokenEnv()).path("name").asText());
        assertThat(keyRef.path("key").asText()).isEqualTo("replica");
        assertThat(Files.readString(root.resolve("deploy/k8s/README.md"))).as("the Secret's creation names it")
            .contains("--from-literal=replica=");
    }

    @Test
    void flinkPodsExposeThePrometheusReporterPort() {
        JsonNode fd = Manifests.one(docs, "FlinkDeployment", JOB).path("spec");
        int reporterPort = Integer.parseInt(fd.path("flinkConfiguration").path("metrics.reporter.prom.port").asText());
        JsonNode container = fd.path("podTemplate").path("spec").path("containers").get(0);
        assertThat(container.path("name").asText()).as("the operator's main container name").isEqualTo("flink-main-container");
        JsonNode port = container.path("ports").get(0);
        assertThat(port.path("containerPort").asInt()).isEqualTo(reporterPort);
        JsonNode pm = Manifests.one(docs, "PodMonitor", "tierroute-flink").path("spec");
        assertThat(pm.path("podMetricsEndpoints").get(0).path("port").asText()).isEqualTo(port.path("name").asText());
        assertThat(pm.path("selector").path("matchLabels").path("app").asText()).as("operator pod label app=<name>")
            .isEqualTo(JOB);
    }

    /**
     * Flink's REST API cancels the job without credentials: the UI's cancel button is off, and the NetworkPolicy keeps
     * the API to tierroute's pods and the operator while leaving open what the job itself needs of its JobManager.
     */
    @Test
    void theJobManagersRestApiIsOpenOnlyToTierrouteAndTheOperator() {
        JsonNode fd = Manifests.one(docs, "FlinkDeployment", JOB).path("spec");
        Map<String, String> flinkConf = new HashMap<>();
        fd.path("flinkConfiguration").fields().forEachRemaining(e -> flinkConf.put(e.getKey(), e.getValue().asText()));
        Configuration cluster = Configuration.fromMap(flinkConf);
        assertThat(cluster.get(WebOptions.CANCEL_ENABLE)).as("web.cancel.enable").isFalse();

        JsonNode np = Manifests.one(docs, "NetworkPolicy", "tierroute-flink-jobmanager").path("spec");
        assertThat(np.path("podSelector").path("matchLabels").path("app").asText()).as("Flink's label app=<name>")
            .isEqualTo(JOB);
        assertThat(np.path("podSelector").path("matchLabels").path("component").asText()).isEqualTo("jobmanager");
        assertThat(np.path("policyTypes").toString()).contains("Ingress");
        int rest = cluster.get(RestOptions.PORT);
        int rpc = cluster.get(JobManagerOptions.PORT); // also the HA port on Kubernetes (Flink sets one from the other)
        int blob = 6124; // fixed by Flink's native Kubernetes mode (its Constants.BLOB_SERVER_PORT)
        int reporter = Integer.parseInt(flinkConf.get("metrics.reporter.prom.port"));
        Map<Integer, JsonNode> fromByPort = new TreeMap<>();
        for (JsonNode rule : np.path("ingress")) {
            for (JsonNode port : rule.path("ports")) {
                assertThat(fromByPort.put(port.path("port").asInt(), rule.path("from"))).as("port %s once", port).isNull();
            }
        }
        assertThat(fromByPort.keySet()).as("every port the JobManager serves, and no other")
            .containsExactlyInAnyOrder(rest, rpc, blob, reporter);
        assertThat(fromByPort.get(reporter).isMissingNode()).as("the reporter open to Prometheus wherever it runs").isTrue();
        JsonNode restPeers = fromByPort.get(rest);
        assertThat(restPeers).as("the REST API is not open to all").hasSizeGreaterThanOrEqualTo(1);
        JsonNode tierroute = null;
        boolean operator = false;
        for (JsonNode peer : restPeers) {
            JsonNode labels = peer.path("podSelector").path("matchLabels");
            if (peer.has("namespaceSelector")) {
                operator |= labels.path("app.kubernetes.io/name").asText().equals("flink-kubernetes-operator");
            } else {
                tierroute = labels;
            }
        }
        assertThat(operator).as("the operator, which drives savepoints and upgrades through the REST API").isTrue();
        assertThat(tierroute).as("a peer for tierroute's own pods").isNotNull();
        assertCarriedByEveryTierroutePod(tierroute, "the REST API's peer");
        for (JsonNode peer : fromByPort.get(rpc)) {
            assertThat(peer.path("podSelector").path("matchLabels").path("app").asText()).as("the job's TaskManagers")
                .isEqualTo(JOB);
        }
        assertThat(fromByPort.get(blob)).isEqualTo(fromByPort.get(rpc));
    }

    /**
     * The README's {@code networkPolicyPeers} for the Strimzi listener (Strimzi writes the listener's NetworkPolicy, so
     * the restriction lives there): on the port the clients connect to, admitting every pod that connects.
     */
    @Test
    void theReadmesKafkaListenerPeersAdmitEveryKafkaClientPod() throws IOException {
        String readme = Files.readString(root.resolve("deploy/k8s/README.md"));
        java.util.regex.Matcher block = java.util.regex.Pattern.compile("```yaml\n(.*?)```", java.util.regex.Pattern.DOTALL)
            .matcher(readme);
        JsonNode listener = null;
        while (block.find() && listener == null) {
            if (block.group(1).contains("networkPolicyPeers")) {
                listener = Manifests.yaml(block.group(1)).path("spec").path("kafka").path("listeners").get(0);
            }
        }
        assertThat(listener).as("a Kafka listener with networkPolicyPeers in deploy/k8s/README.md").isNotNull();
        String bootstrapPort = selectorConfig().kafka().bootstrapServers().split(",")[0].split(":")[1];
        assertThat(listener.path("port").asText()).as("the port the manifests connect to").isEqualTo(bootstrapPort);
        assertThat(listener.path("networkPolicyPeers")).hasSize(1);
        assertCarriedByEveryTierroutePod(listener.path("networkPolicyPeers").get(0).path("podSelector").path("matchLabels"),
            "the Kafka listener's peer");
    }

    /** {@code matchLabels} is non-empty and every tierroute pod template (selector, fitting job, trim) carries it. */
    static void assertCarriedByEveryTierroutePod(JsonNode matchLabels, String what) {
        assertThat(matchLabels.size()).as(what + " selects by a label").isPositive();
        Map<String, JsonNode> pods = Map.of(
            "the selector", Manifests.one(docs, "Deployment", SELECTOR).path("spec").path("template"),
            "the fitting job", Manifests.one(docs, "FlinkDeployment", JOB).path("spec").path("podTemplate"),
            "the trim", Manifests.one(docs, "CronJob", "tierroute-params-trim").path("spec").path("jobTemplate")
                .path("spec").path("template"));
        pods.forEach((pod, template) -> matchLabels.fields().forEachRemaining(e ->
            assertThat(template.path("metadata").path("labels").path(e.getKey()).asText())
                .as("%s: %s's pods carry %s", what, pod, e.getKey()).isEqualTo(e.getValue().asText())));
    }

    /** The {@code secretKeyRef} of the container's environment variable {@code name}. */
    static JsonNode secretRef(JsonNode container, String name) {
        for (JsonNode e : container.path("env")) {
            if (e.path("name").asText().equals(name)) {
                JsonNode ref = e.path("valueFrom").path("secretKeyRef");
                assertThat(ref.path("optional").asBoolean(false)).as(name + " is required, not optional").isFalse();
                return ref;
            }
        }
        throw new AssertionError("the selector container has no environment variable " + name);
    }

    static SelectorConfig selectorConfig() {
        JsonNode cm = Manifests.one(docs, "ConfigMap", SELECTOR);
        String yaml = cm.path("data").path("selector.yaml").asText();
        assertThat(yaml).as("ConfigMap data selector.yaml").isNotBlank();
        return ConfigLoader.parse(yaml, Path.of("/etc/tierroute"));
    }

    /** The Strimzi cluster name behind the selector's bootstrap address ({@code <cluster>-kafka-bootstrap:port}). */
    static String kafkaClusterOfBootstrap() {
        String host = selectorConfig().kafka().bootstrapServers().split(",")[0].split(":")[0];
        assertThat(host).as("a Strimzi bootstrap Service").endsWith("-kafka-bootstrap");
        return host.substring(0, host.length() - "-kafka-bootstrap".length());
    }

    /** A Kubernetes quantity such as 2Gi or 512Mi in bytes. */
    static long bytes(String quantity) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)(Ki|Mi|Gi|Ti)?").matcher(quantity);
        assertThat(m.matches()).as("memory quantity " + quantity).isTrue();
        int shift = m.group(2) == null ? 0 : 10 * (1 + "KiMiGiTi".indexOf(m.group(2)) / 2);
        return Long.parseLong(m.group(1)) << shift;
    }

    static JsonNode volume(JsonNode podSpec, String name) {
        JsonNode spec = podSpec.has("spec") ? podSpec.path("spec") : podSpec;
        for (JsonNode v : spec.path("volumes")) {
            if (v.path("name").asText().equals(name)) {
                return v;
            }
        }
        throw new AssertionError("no volume " + name);
    }

    static String volumeMountPath(JsonNode podTemplate, String volume) {
        volume(podTemplate, volume);
        for (JsonNode c : podTemplate.path("spec").path("containers")) {
            for (JsonNode m : c.path("volumeMounts")) {
                if (m.path("name").asText().equals(volume)) {
                    return m.path("mountPath").asText();
                }
            }
        }
        throw new AssertionError("volume " + volume + " is not mounted");
    }
}
