package io.tierroute.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierroute.cli.TierrouteCommand;
import io.tierroute.deploy.local.KafkaBrokerProcess;
import io.tierroute.deploy.local.LocalClasspath;
import io.tierroute.deploy.local.LoopbackPorts;
import io.tierroute.deploy.local.ProjectTopics;
import io.tierroute.schemas.AvroTrust;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.FittedValue;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.QualityKind;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.TierBandwidth;
import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.server.SelectorServer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.util.Timeout;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Fault test: the Kafka broker process is stopped for 60 s while a selector (the real HTTP server, with
 * its parameter loader, KV-event consumer and decision publisher on that broker) serves route requests.
 * Every route succeeds during the outage, with the last good parameters (v1); once the broker is back on
 * the same port and data, the selector reconnects by itself and applies the snapshot published after
 * the restart (v2), with no call to it. During the outage its {@code GET /v1/params} and metrics say Kafka is
 * unreachable and since when; afterwards they say it is back, and the loader never restarted its session. The calls
 * go through Apache HttpClient without retries: the JDK 17 client loses rare answers on pooled connections
 * (JDK-8336655), which would read as a failed route.
 */
class KafkaOutageTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration OUTAGE = Duration.ofSeconds(60);

    @TempDir
    Path tmp;

    @Test
    void routesNeverFailWhileKafkaIsDownAndTheSelectorCatchesUpAfterwards() throws Exception {
        AvroTrust.install();
        KafkaBrokerProcess kafka = new KafkaBrokerProcess(new KafkaBrokerProcess.Settings(tmp.resolve("kafka"),
                LoopbackPorts.free(), LoopbackPorts.free(), LocalClasspath.fromResource(TierrouteCommand.class),
                "tierroute-test:" + tmp, Map.of()));
        try (kafka) {
            kafka.start(Duration.ofSeconds(120));
            ProjectTopics.create(kafka.bootstrapServers(), (short) 1);
            publish(kafka.bootstrapServers(), snapshot(1, 2.0));

            try (SelectorServer selector = SelectorServer.start(ConfigLoader.parse(config(kafka.bootstrapServers()), tmp));
                 CloseableHttpClient http = HttpClients.custom().disableAutomaticRetries()
                         .setDefaultRequestConfig(RequestConfig.custom().setResponseTimeout(Timeout.ofSeconds(5)).build())
                         .build()) {
                awaitVersion(http, selector.uri(), 1, Duration.ofSeconds(60));

                Router router = new Router(http, selector.uri());
                Thread t = new Thread(router, "routes");
                t.start();
                long routingDeadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (router.ok.get() == 0 && System.nanoTime() < routingDeadline) {
                    Thread.sleep(50); // a loaded CI machine may take a while over the first routes
                }
                long before = router.ok.get();
                assertThat(before).as("routes before the outage; first failure: " + router.firstFailure).isPositive();

                kafka.stop();
                long down = System.nanoTime();
                router.versionsSeen.clear();
                Thread.sleep(OUTAGE.toMillis());
                long duringOutage = router.ok.get() - before;
                assertThat(router.versionsSeen.keySet()).as("the last good parameters stay in force").containsOnly(1L);
                // The operator is told: the loader has had no contact with Kafka since about the stop (QA F3).
                JsonNode params = JSON.readTree(call(http, new HttpGet(selector.uri().resolve("/v1/params"))).body())
                        .path("kafka").path("params");
                assertThat(params.path("kafka_connected").asBoolean(true)).as("during the outage: " + params).isFalse();
                assertThat(params.path("last_error").asText()).as("during the outage")
                        .startsWith("no connection to Kafka at " + kafka.bootstrapServers() + " since ")
                        .endsWith("; serving parameter version 1 meanwhile");
                assertThat(params.path("ready").asBoolean()).as("ready: caught up once").isTrue();
                String metrics = call(http, new HttpGet(selector.uri().resolve("/metrics"))).body();
                assertThat(metrics).contains("tierroute_params_kafka_connected 0.0");
                assertThat(gauge(metrics, "tierroute_params_kafka_unreachable_seconds")).as("seconds since the stop")
                        .isGreaterThan(OUTAGE.toSeconds() - 10.0);

                kafka.start(Duration.ofSeconds(120));
                long upAgain = System.nanoTime();
                publish(kafka.bootstrapServers(), snapshot(2, 3.0));
                awaitVersion(http, selector.uri(), 2, Duration.ofSeconds(90));
                Duration catchUp = Duration.ofNanos(System.nanoTime() - upAgain);
                JsonNode after = JSON.readTree(call(http, new HttpGet(selector.uri().resolve("/v1/params"))).body())
                        .path("kafka").path("params");
                assertThat(after.path("kafka_connected").asBoolean()).as("after the outage: " + after).isTrue();
                assertThat(after.path("last_error").isNull()).as("after the outage: " + after).isTrue();
                assertThat(after.path("restarts").asLong()).as("the loader went on in the same session").isZero();
                // /v1/params already shows v2; give the router's next routes (one may have been in flight
                // across the swap, and a loaded CI machine can delay the thread) time to carry it too.
                long routesDeadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (!router.versionsSeen.containsKey(2L) && System.nanoTime() < routesDeadline) {
                    Thread.sleep(50);
                }
                router.stop.set(true);
                t.join(10_000);

                System.out.printf("[measured] Kafka outage %.1f s: %d routes served during it, %d failed in all; broker "
                                + "restart %.1f s; v2, published after the restart, served %.1f s after the broker was ready again%n",
                        (upAgain - down) / 1e9, duringOutage, router.failed.get(), kafka.lastStartTime().toMillis() / 1e3,
                        catchUp.toMillis() / 1e3);
                assertThat(router.failed.get()).as("failed routes; first failure: " + router.firstFailure).isZero();
                assertThat(duringOutage).as("routes served while Kafka was down").isPositive();
                assertThat(router.versionsSeen).as("versions the routes carried after the restart").containsKey(2L);
            }
        }
    }

    /** Routes a request every ~10 ms; counts answers that are not 200 (or no answer) as failures. */
    private static final class Router implements Runnable {
        final CloseableHttpClient http;
        final URI base;
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong ok = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        final Map<Long, Boolean> versionsSeen = new ConcurrentHashMap<>();
        volatile String firstFailure;

        Router(CloseableHttpClient http, URI base) {
            this.http = http;
            this.base = base;
        }

        @Override
        public void run() {
            int i = 0;
            while (!stop.get()) {
                String body = "{\"text\": \"You are a helpful assistant. Conversation " + (i++ % 50)
                        + ": summarise the tiered KV cache design.\", \"max_tokens\": 64}";
                try {
                    HttpPost post = new HttpPost(base.resolve("/v1/route"));
                    post.setEntity(new StringEntity(body, ContentType.APPLICATION_JSON));
                    Answer r = call(http, post);
                    if (r.status() == 200) {
                        ok.incrementAndGet();
                        versionsSeen.put(JSON.readTree(r.body()).path("snapshot_version").asLong(-1), true);
                    } else {
                        fail("HTTP " + r.status() + ": " + r.body());
                    }
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    fail(e.toString());
                }
            }
        }

        private void fail(String why) {
            if (failed.getAndIncrement() == 0) {
                firstFailure = why;
            }
        }
    }

    private record Answer(int status, String body) {}

    private static double gauge(String metrics, String name) {
        return metrics.lines().filter(l -> l.startsWith(name + " ")).mapToDouble(l -> Double.parseDouble(
                l.substring(name.length() + 1))).findFirst().orElseThrow(() -> new AssertionError(name + " not scraped"));
    }

    private static Answer call(CloseableHttpClient http, ClassicHttpRequest request) throws IOException {
        return http.execute(request, r -> new Answer(r.getCode(), EntityUtils.toString(r.getEntity())));
    }

    private static Duration awaitVersion(CloseableHttpClient http, URI base, long version, Duration timeout) throws Exception {
        long begin = System.nanoTime();
        long deadline = begin + timeout.toNanos();
        long seen = -1;
        while (System.nanoTime() < deadline) {
            JsonNode n = JSON.readTree(call(http, new HttpGet(base.resolve("/v1/params"))).body());
            seen = n.path("version").asLong(-1);
            if (seen == version) {
                return Duration.ofNanos(System.nanoTime() - begin);
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the selector serves v" + seen + ", not v" + version + ", after " + timeout.toSeconds() + " s");
    }

    private static String config(String bootstrap) {
        return """
                model: {name: qwen3-32b, blockSize: 16, bytesPerToken: 262144}
                defaults: {kvCapacityTokens: 400000, tiers: {cpu: 64e9, nvme: 7e9}}
                workers: {count: 8, namePrefix: w}
                server: {host: 127.0.0.1, port: 0}
                kafka:
                  bootstrapServers: %s
                  scope: default
                  clientId: outage-test-selector
                  params: {startupTimeout: 60s, requireOnStart: true}
                  kvEvents: {startFrom: latest}
                """.formatted(bootstrap);
    }

    private static FittedValue fv(double v, long samples) {
        return FittedValue.newBuilder().setValue(v).setSamples(samples).setQuality(0.9).setQualityKind(QualityKind.R2)
                .setStdError(null).setWindowStartMs(1).setWindowEndMs(2).build();
    }

    /** An accepted snapshot of scope default whose α_p is {@code alphaP}. */
    private static ParameterSnapshot snapshot(long version, double alphaP) {
        return ParameterSnapshot.newBuilder().setScope("default").setVersion(version)
                .setParentVersion(version > 1 ? version - 1 : null).setProducer("outage-test")
                .setCreatedAtMs(System.currentTimeMillis()).setStatus(SnapshotStatus.ACCEPTED).setRejectReasons(List.of())
                .setAlphaP(fv(alphaP, 1000)).setAlphaP2(fv(0.0, 1000)).setAlphaD(fv(40, 800)).setAlphaD2(fv(0.002, 800))
                .setAlphaT(fv(1.1, 300)).setAlphaHo(fv(90, 200)).setQSlack(fv(3, 200)).setAlphaWf(fv(4000, 100))
                .setLambda(fv(0.01, 100)).setAlphaWf2(fv(10, 100))
                .setBandwidths(List.of(new TierBandwidth(Tier.CPU, fv(6.4e10, 50)))).setRho(List.of())
                .setQuantileModel(null).setControlSequence(0).build();
    }

    private static void publish(String bootstrap, ParameterSnapshot s) throws Exception {
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap, "linger.ms", 0),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            p.send(new ProducerRecord<>(Topics.PARAMS, Topics.paramsKey(s.getScope(), s.getVersion())
                    .getBytes(StandardCharsets.UTF_8), Codecs.PARAMETER_SNAPSHOT.encode(s))).get(30, TimeUnit.SECONDS);
        }
    }
}
