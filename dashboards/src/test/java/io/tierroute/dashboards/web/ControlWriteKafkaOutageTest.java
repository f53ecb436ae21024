package io.tierroute.dashboards.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierroute.dashboards.Broker;
import io.tierroute.dashboards.Dashboard;
import io.tierroute.dashboards.Snapshots;
import io.tierroute.deploy.local.KafkaBrokerProcess;
import io.tierroute.deploy.local.LoopbackPorts;
import io.tierroute.deploy.local.ProjectTopics;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ParameterSnapshot;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A pin while the dashboard's Kafka broker process is paused (SIGSTOP: connections stay open, nothing answers) is a 503
 * that says nothing was written: at once once the history reader has noticed the outage, after the write's Kafka timeout
 * (10 s) before it has. Nothing lands on the control topic when the broker answers again, and a pin then is written.
 */
class ControlWriteKafkaOutageTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOKEN = "outage-test-token-0123456789";

    @TempDir
    Path tmp;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void aPinWhileTheBrokerIsPausedIsA503ThatSaysNothingWasWritten() throws Exception {
        List<Path> classpath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(Path::of).toList();
        try (KafkaBrokerProcess kafka = new KafkaBrokerProcess(new KafkaBrokerProcess.Settings(tmp.resolve("kafka"),
                LoopbackPorts.free(), LoopbackPorts.free(), classpath, "tierroute-test:" + tmp, Map.of()))) {
            kafka.start(Duration.ofSeconds(120));
            String bootstrap = kafka.bootstrapServers();
            ProjectTopics.create(bootstrap, (short) 1);
            publish(bootstrap, Snapshots.accepted("default", 1).build(), Snapshots.accepted("default", 2).build());
            try (Dashboard d = Dashboard.start(new Dashboard.Settings(bootstrap, "127.0.0.1", 0, TOKEN, "TEST_TOKEN",
                    "default"))) {
                assertThat(d.reader().awaitReady(Duration.ofSeconds(60))).isTrue();
                long pid = kafka.jvm().pid();
                signal("STOP", pid);
                try {
                    // Before the reader notices (5 s without contact): the write's own Kafka call times out.
                    HttpResponse<String> unnoticed = pin(d.uri(), 1);
                    assertThat(unnoticed.statusCode()).as(unnoticed.body()).isEqualTo(503);
                    assertThat(error(unnoticed)).contains("nothing was written");

                    Broker.await(Duration.ofSeconds(20), () -> d.reader().kafkaOutage() != null, "the outage noticed");
                    long asked = System.nanoTime();
                    HttpResponse<String> noticed = pin(d.uri(), 1);
                    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
                    assertThat(noticed.statusCode()).as(noticed.body()).isEqualTo(503);
                    assertThat(error(noticed)).startsWith("Kafka is unreachable (no connection to Kafka at " + bootstrap
                            + " since ").endsWith("; nothing was written: retry once Kafka answers");
                    // Refused before any Kafka call; one that made it would wait the write's Kafka timeout, 10 s:
                    // the bound sits between, with room for a loaded machine.
                    assertThat(tookMs).as("refused at once, not after a Kafka timeout").isLessThan(7_000);
                } finally {
                    signal("CONT", pid);
                }
                Broker.await(Duration.ofSeconds(60), () -> d.reader().kafkaOutage() == null, "contact back");
                assertThat(Broker.controlRecords(bootstrap, new Properties())).as("the refused pins wrote nothing")
                        .isEmpty();
                HttpResponse<String> written = pin(d.uri(), 1);
                assertThat(written.statusCode()).as(written.body()).isEqualTo(200);
                assertThat(Broker.controlRecords(bootstrap, new Properties())).hasSize(1);
            }
        }
    }

    private HttpResponse<String> pin(URI base, long version) throws Exception {
        return http.send(HttpRequest.newBuilder(base.resolve("api/v1/scopes/default/pin"))
                .header("Authorization", "Bearer " + TOKEN).header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString("{\"version\": " + version + ", \"reason\": \"outage\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String error(HttpResponse<String> r) throws Exception {
        JsonNode n = JSON.readTree(r.body());
        return n.path("error").asText();
    }

    /** Sends SIGSTOP or SIGCONT to the broker process this test started. */
    private static void signal(String name, long pid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0).as("kill -" + name + " " + pid).isTrue();
    }

    private static void publish(String bootstrap, ParameterSnapshot... snapshots) throws Exception {
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap, "linger.ms", 0),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            for (ParameterSnapshot s : snapshots) {
                p.send(new ProducerRecord<>(Topics.PARAMS, Topics.paramsKey(s.getScope(), s.getVersion())
                        .getBytes(StandardCharsets.UTF_8), Codecs.PARAMETER_SNAPSHOT.encode(s))).get(30, TimeUnit.SECONDS);
            }
        }
    }
}
