package io.tierroute.selector.config;

import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.scheduling.SelectorSettings;
import io.tierroute.selector.scheduling.WorkerSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Good configurations map onto the settings; every kind of bad one fails naming the field. */
class ConfigLoaderTest {

    @TempDir
    Path dir;

    private static final String FULL = """
            model: {name: qwen3-32b, blockSize: 16, bytesPerToken: 262144}
            defaults: {kvCapacityTokens: 400000, tiers: {cpu: 64e9, nvme: 7e9}, maxInFlight: 0, maxWaiting: 0, approximate: false}
            workers:
              - {name: w0}
              - {name: w1, kvCapacityTokens: 200000, tiers: {cpu: 32e9}, approximate: true, maxInFlight: 8}
            routing: {temperature: 0.5, explorationEpsilon: 0.01, defaultMaxTokens: 512, textCharsPerBlock: 32,
                      approximateTtl: 120s, requestMaxAge: 10m, telemetryMaxAge: 250ms, maxQueued: 100, maxQueueWait: 30s, seed: 7}
            parameters: {alphaP: 1.5, alphaD: 40}
            index: {maxBlocks: 1000000}
            server: {host: 0.0.0.0, port: 9090, maxBodyBytes: 65536, ioThreads: 2, workerThreads: 4}
            admin: {tokenEnv: MY_TOKEN}
            """;

    /** Names the fitting job would refuse in every record it carries them in are refused here, naming the key. */
    @Test
    void namesLongerThanTheJobTakesAreRefused() {
        String longName = "w".repeat(ConfigLoader.MAX_NAME_CHARS + 1);
        assertThatThrownBy(() -> ConfigLoader.parse("workers: [{name: " + longName + "}]\n", Path.of(".")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("workers[0].name")
                .hasMessageContaining("at most 256 characters, got 257");
        assertThatThrownBy(() -> ConfigLoader.parse("workers: {count: 1}\nmodel: {name: " + longName + "}\n", Path.of(".")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("model.name");
        assertThatThrownBy(() -> ConfigLoader.parse("workers: {count: 1}\nkafka: {bootstrapServers: 'h:1', scope: "
                + longName + "}\n", Path.of("."))).isInstanceOf(ConfigException.class).hasMessageContaining("kafka.scope");
        String longest = "w".repeat(ConfigLoader.MAX_NAME_CHARS);
        assertThat(ConfigLoader.parse("workers: [{name: " + longest + "}]\n", Path.of(".")).selector().workers().get(0).name())
                .isEqualTo(longest);
    }

    @Test
    void settingsOfAFeatureThatIsOffAreWarningsThatNameTheKey() {
        assertThat(ConfigLoader.parse(FULL, dir).warnings()).as("w1 is approximate: its TTL matters").isEmpty();
        SelectorConfig c = ConfigLoader.parse("""
                workers: [{name: a}]
                routing: {computingClaimTtl: 60s, approximateTtl: 30s}
                kafka:
                  bootstrapServers: "k:9092"
                  params: {enabled: false, requireOnStart: true, retainedSnapshots: 4}
                  kvEvents: {enabled: false, startFrom: earliest}
                  decisions: {enabled: false, linger: 5ms, compression: zstd}
                """, dir);
        assertThat(c.warnings()).containsExactly(
                "kafka.params.retainedSnapshots has no effect while kafka.params.enabled is false",
                "kafka.params.requireOnStart has no effect while kafka.params.enabled is false",
                "kafka.kvEvents.startFrom has no effect while kafka.kvEvents.enabled is false",
                "kafka.decisions.linger has no effect while kafka.decisions.enabled is false",
                "kafka.decisions.compression has no effect while kafka.decisions.enabled is false",
                "routing.computingClaimTtl has no effect while routing.computingClaims is false",
                "routing.approximateTtl has no effect while no worker is approximate (it is the life of the entries "
                        + "routing writes for approximate workers)");
        assertThat(ConfigLoader.parse("""
                workers: [{name: a}]
                routing: {computingClaims: true, computingClaimTtl: 60s}
                kafka: {bootstrapServers: "k:9092", params: {requireOnStart: true}, kvEvents: {startFrom: earliest}}
                """, dir).warnings()).as("each feature on (kafka's by default)").isEmpty();
    }

    @Test
    void fullConfigMapsOntoSettings() {
        SelectorConfig c = ConfigLoader.parse(FULL, dir);
        assertThat(c.selector().model()).isEqualTo("qwen3-32b");
        assertThat(c.selector().bytesPerToken()).isEqualTo(262144);
        WorkerSpec w0 = c.selector().workers().get(0);
        WorkerSpec w1 = c.selector().workers().get(1);
        assertThat(w0.kvCapacityTokens()).isEqualTo(400_000);
        assertThat(w0.bandwidth()[Tier.CPU.ordinal()]).isEqualTo(64e9);
        assertThat(w0.bandwidth()[Tier.NVME.ordinal()]).isEqualTo(7e9);
        assertThat(w1.bandwidth()[Tier.CPU.ordinal()]).isEqualTo(32e9);
        assertThat(w1.bandwidth()[Tier.NVME.ordinal()]).isZero(); // a worker's tiers replace the defaults'
        assertThat(w1.approximate()).isTrue();
        assertThat(w1.maxInFlight()).isEqualTo(8);
        assertThat(c.selector().temperature()).isEqualTo(0.5);
        assertThat(c.selector().telemetryMaxAge()).isEqualTo(Duration.ofMillis(250));
        assertThat(c.selector().requestMaxAge()).isEqualTo(Duration.ofMinutes(10));
        assertThat(c.selector().seed()).isEqualTo(7L);
        assertThat(c.initialParameters().cost().alphaP()).isEqualTo(1.5);
        assertThat(c.initialParameters().cost().alphaD()).isEqualTo(40);
        assertThat(c.initialParameters().cost().alphaHo()).isEqualTo(100); // untouched default
        assertThat(c.indexMaxBlocks()).isEqualTo(1_000_000);
        assertThat(c.server()).isEqualTo(new ServerSettings("0.0.0.0", 9090, 65536, 2, 4));
        assertThat(c.adminTokenEnv()).isEqualTo("MY_TOKEN");
    }

    @Test
    void theExampleConfigsLoad() {
        Path examples = Path.of("..", "examples");
        SelectorConfig eight = ConfigLoader.load(examples.resolve("selector.yaml"));
        assertThat(eight.selector().workers()).hasSize(8);
        assertThat(eight.selector().workers().get(7).approximate()).isTrue();
        assertThat(eight.selector().workers().get(5).bandwidth()[Tier.NVME.ordinal()]).isZero();
        assertThat(eight.adminTokenEnv()).isEqualTo("TIERROUTE_ADMIN_TOKEN");
        SelectorConfig bench = ConfigLoader.load(examples.resolve("selector-64.yaml"));
        assertThat(bench.selector().workers()).hasSize(64);
        assertThat(bench.selector().workers().get(63).name()).isEqualTo("w63");
        assertThat(eight.kafka()).as("no kafka section: HTTP only").isNull();
        SelectorConfig kafka = ConfigLoader.load(examples.resolve("selector-kafka.yaml"));
        assertThat(List.of(eight.warnings(), bench.warnings(), kafka.warnings())).as("the examples start clean")
                .containsOnly(List.of());
        assertThat(kafka.kafka().bootstrapServers()).isEqualTo("127.0.0.1:9092");
        assertThat(kafka.kafka().clientId()).isEqualTo("tierroute-selector-a");
        assertThat(kafka.kafka().selectorId()).isEqualTo("tierroute-selector-a");
    }

    @Test
    void kafkaSectionMapsOntoSettingsWithDefaults() {
        SelectorConfig c = ConfigLoader.parse("""
                workers: [{name: a}]
                kafka:
                  bootstrapServers: "h1:9092,h2:9093"
                  scope: pool-a
                  clientId: sel-1
                  properties: {security.protocol: SSL}
                  params: {retainedSnapshots: 3, startupTimeout: 5s, requireOnStart: true, rhoMaxAge: 0s}
                  kvEvents: {enabled: false, startFrom: earliest}
                  decisions: {bufferSize: 10, linger: 0ms, batchBytes: 2048, compression: zstd}
                """, dir);
        KafkaSettings k = c.kafka();
        assertThat(k.bootstrapServers()).isEqualTo("h1:9092,h2:9093");
        assertThat(k.scope()).isEqualTo("pool-a");
        assertThat(k.selectorId()).isEqualTo("sel-1");
        assertThat(k.properties()).containsEntry("security.protocol", "SSL");
        assertThat(k.params()).isEqualTo(new KafkaSettings.Params(true, 3, java.time.Duration.ofSeconds(5), true,
                java.time.Duration.ZERO));
        assertThat(k.kvEvents()).isEqualTo(new KafkaSettings.KvEvents(false, "earliest"));
        assertThat(k.decisions()).isEqualTo(new KafkaSettings.Decisions(true, 10, java.time.Duration.ZERO, 2048, "zstd"));

        KafkaSettings d = ConfigLoader.parse("workers: [{name: a}]\nkafka: {bootstrapServers: \"k:9092\"}\n", dir).kafka();
        assertThat(d.scope()).isEqualTo("default");
        assertThat(d.clientId()).startsWith("tierroute-selector-");
        assertThat(d.params()).isEqualTo(KafkaSettings.Params.DEFAULTS);
        assertThat(d.kvEvents()).isEqualTo(KafkaSettings.KvEvents.DEFAULTS);
        assertThat(d.decisions()).isEqualTo(KafkaSettings.Decisions.DEFAULTS);
    }

    @Test
    void badKafkaSettingsNameTheField() {
        String w = "workers: [{name: a}]\n";
        bad(w + "kafka: {scope: x}\n", "kafka.bootstrapServers", "required");
        bad(w + "kafka: {bootstrapServers: \"nohost\"}\n", "kafka.bootstrapServers", "host:port");
        bad(w + "kafka: {bootstrapServers: \"h:99999\"}\n", "kafka.bootstrapServers");
        bad(w + "kafka: {bootstrapServers: \"h:1\", scope: \"a#b\"}\n", "kafka.scope", "#");
        bad(w + "kafka: {bootstrapServers: \"h:1\", clientId: \"a b\"}\n", "kafka.clientId");
        bad(w + "kafka: {bootstrapServers: \"h:1\", params: {retainedSnapshots: 0}}\n", "kafka.params.retainedSnapshots");
        bad(w + "kafka: {bootstrapServers: \"h:1\", params: {startupTimeout: 5}}\n", "kafka.params.startupTimeout");
        bad(w + "kafka: {bootstrapServers: \"h:1\", kvEvents: {startFrom: middle}}\n", "kafka.kvEvents.startFrom",
                "latest or earliest");
        bad(w + "kafka: {bootstrapServers: \"h:1\", decisions: {bufferSize: 0}}\n", "kafka.decisions.bufferSize");
        bad(w + "kafka: {bootstrapServers: \"h:1\", decisions: {compression: brotli}}\n", "kafka.decisions.compression");
        bad(w + "kafka: {bootstrapServers: \"h:1\", decisions: {lingr: 5ms}}\n", "kafka.decisions", "lingr");
        bad(w + "kafka: {bootstrapServers: \"h:1\", properties: {client.id: x}}\n", "kafka.properties", "clientId");
        bad(w + "kafka: {bootstrapServers: \"h:1\", topics: {}}\n", "kafka", "topics");
        bad(w + "kafka: {bootstrapServers: \"h:1\", scope: \"\"}\n", "kafka.scope", "empty");
        bad(w + "kafka: {bootstrapServers: \"h:1\", selectorId: \" \"}\n", "kafka.selectorId", "empty");
        bad(w + "kafka: {bootstrapServers: \"h:1\", properties: {group.id: g}}\n", "kafka.properties", "cannot be overridden");
        bad(w + "kafka: {bootstrapServers: \"h:1\", properties: {transactional.id: t}}\n", "kafka.properties",
                "cannot be overridden");
        bad(w + "kafka: {bootstrapServers: \"h:1\", properties: {isolation.level: read_uncommitted}}\n",
                "kafka.properties", "cannot be overridden");
    }

    @Test
    void generatedWorkersAndDefaults() {
        assertThat(ConfigLoader.parse("workers: [{name: a, kvCapacityTokens: 9223372036854775807}]\n", dir).selector()
                .workers().get(0).kvCapacityTokens()).as("the stated maximum").isEqualTo(Long.MAX_VALUE);
        SelectorConfig c = ConfigLoader.parse("workers: {count: 3, namePrefix: gpu-, kvCapacityTokens: 1000}\n", dir);
        assertThat(c.selector().workers()).extracting(WorkerSpec::name).containsExactly("gpu-0", "gpu-1", "gpu-2");
        assertThat(c.selector().workers().get(2).kvCapacityTokens()).isEqualTo(1000);
        assertThat(c.server()).isEqualTo(ServerSettings.DEFAULTS);
        assertThat(c.parametersFile()).isNull();
        assertThat(c.initialParameters().version()).isZero();
        assertThat(c.selector().textCharsPerBlock()).as("16-token blocks of 4-character tokens").isEqualTo(64);
    }

    @Test
    void theTextChunkFollowsTheBlockSize() {
        // A QA run: 512-token blocks with the 16-token blocks' 64 characters counted 8 tokens per character.
        for (String routing : new String[] {"", "routing: {temperature: 0}\n"}) {
            SelectorConfig c = ConfigLoader.parse("model: {name: m, blockSize: 512, bytesPerToken: 1024}\n"
                    + "workers: {count: 2}\n" + routing, dir);
            assertThat(c.selector().textCharsPerBlock()).as(routing).isEqualTo(2048);
        }
    }

    @Test
    void jsonWorksToo() throws Exception {
        Path f = dir.resolve("c.json");
        Files.writeString(f, "{\"workers\": [{\"name\": \"a\"}, {\"name\": \"b\"}], \"routing\": {\"requestMaxAge\": \"5m\"}}");
        SelectorConfig c = ConfigLoader.load(f);
        assertThat(c.selector().workers()).hasSize(2);
        assertThat(c.source()).isEqualTo(f);
    }

    @Test
    void parametersFileResolvesAgainstTheConfigDirectory() throws Exception {
        Files.createDirectories(dir.resolve("conf"));
        Files.writeString(dir.resolve("conf/p.yaml"), "version: 4\nrho: {b: {cpu: 0.5}}\nparameters: {alphaHo: 7}\n");
        Files.writeString(dir.resolve("conf/sel.yaml"), "workers: [{name: a}, {name: b}]\nparameters: {alphaD: 33}\nparametersFile: p.yaml\n");
        SelectorConfig c = ConfigLoader.load(dir.resolve("conf/sel.yaml"));
        assertThat(c.parametersFile()).isEqualTo(dir.resolve("conf/p.yaml").toAbsolutePath());
        assertThat(c.initialParameters().version()).isEqualTo(4);
        assertThat(c.initialParameters().rho(1, Tier.CPU.ordinal())).isEqualTo(0.5);
        assertThat(c.initialParameters().cost().alphaHo()).isEqualTo(7);
        assertThat(c.initialParameters().cost().alphaD()).isEqualTo(33); // the config's override is the file's base
    }

    private void bad(String yaml, String... fragments) {
        assertThatThrownBy(() -> ConfigLoader.parse(yaml, dir))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> {
                    for (String f : fragments) {
                        assertThat(e.getMessage()).contains(f);
                    }
                });
    }

    /** As {@link #bad}, for the whole message. */
    private void badExactly(String yaml, String message) {
        assertThatThrownBy(() -> ConfigLoader.parse(yaml, dir)).isInstanceOf(ConfigException.class)
                .hasMessage(message);
    }

    @Test
    void badValuesNameTheirField() {
        bad("workers: [{name: a}, {name: b}, {name: c, tiers: {cpu: -1}}]\n",
                "workers[2].tiers.cpu: must be a number > 0 bytes/s, got -1");
        bad("workers: [{name: a, tiers: {cpu: fast}}]\n", "workers[0].tiers.cpu: must be a number, got 'fast'");
        bad("workers: [{name: a, tiers: {l4: 1e9}}]\n", "workers[0].tiers.l4", "unknown tier");
        bad("workers: [{name: a, tiers: {hbm: 1e9}}]\n", "workers[0].tiers.hbm", "hbm needs no bandwidth");
        bad("workers: [{name: a, kvCapacityTokens: 0}]\n", "workers[0].kvCapacityTokens: must be a number ≥ 1 tokens, got 0");
        bad("workers: [{name: a, kvCapacityTokens: 1.5}]\n", "workers[0].kvCapacityTokens: must be a whole number");
        bad("workers: [{name: a}, {name: a}]\n", "workers[1].name: duplicate worker name 'a' (also at workers[0])");
        bad("workers: [{kvCapacityTokens: 5}]\n", "workers[0].name: is required");
        bad("workers: []\n", "workers: at least one worker");
        bad("workers: {count: 0}\n", "workers.count: must be a number in [1, 100000]");
        bad("workers: 3\n", "workers: must be a list of workers");
        bad("workers: [{name: a, approximate: yes please}]\n", "workers[0].approximate: must be true or false");
        bad("model: {blockSize: 0}\nworkers: [{name: a}]\n", "model.blockSize: must be a number in [1, 1048576]");
        bad("routing: {explorationEpsilon: 2}\nworkers: [{name: a}]\n", "routing.explorationEpsilon: must be a number in [0, 1]");
        bad("parameters: {alphaD: -5}\nworkers: [{name: a}]\n", "parameters.alphaD: must be a number in [0, 100000] µs/token, got -5");
        bad("parameters: {rhoThreshold: 0}\nworkers: [{name: a}]\n", "parameters.rhoThreshold");
        bad("server: {port: 70000}\nworkers: [{name: a}]\n", "server.port: must be a number in [0, 65535], got 70000");
        bad("admin: {tokenEnv: 'not a name'}\nworkers: [{name: a}]\n", "admin.tokenEnv");
        bad("index: {maxBlocks: -1}\nworkers: [{name: a}]\n", "index.maxBlocks");
        bad("index: {maxBlocks: 5000}\nworkers: [{name: a}]\n", "index.maxBlocks: must be a number in [10000, ");
        bad("index: {maxBlocks: 1e9}\nworkers: [{name: a}]\n", "index.maxBlocks: must be a number in [10000, 500000000] blocks");
        bad("server: {idleTimeoutMs: 10}\nworkers: [{name: a}]\n", "server.idleTimeoutMs");
        bad("server: {requestParseTimeoutMs: 0}\nworkers: [{name: a}]\n", "server.requestParseTimeoutMs");
    }

    /**
     * A message quotes a number as the file wrote it, not Jackson's reformatting of its value (6e2 as 600.0 or 600):
     * the user searches the file for what the message shows.
     */
    @Test
    void badNumbersAreQuotedAsWritten() {
        String w = "workers: [{name: a}]\n";
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("routing: {explorationEpsilon: 6e2}\n" + w, "routing.explorationEpsilon: must be a number in [0, 1], got 6e2");
        cases.put("routing: {explorationEpsilon: '6e2'}\n" + w, "routing.explorationEpsilon: must be a number in [0, 1], got 6e2");
        cases.put("routing: {approximateTtl: 6e2}\n" + w, "routing.approximateTtl: must be a duration with a unit such as "
                + "250ms, 120s, 5m, 1h, got 6e2");
        cases.put("workers: [{name: a, kvCapacityTokens: 6.25e1}]\n", "workers[0].kvCapacityTokens: must be a whole number, got 6.25e1");
        cases.put("workers: [{name: a, kvCapacityTokens: -6e2}]\n", "workers[0].kvCapacityTokens: must be a number ≥ 1 tokens, got -6e2");
        cases.put("server: {port: 70_000}\n" + w, "server.port: must be a number in [0, 65535], got 70_000");
        cases.put("routing: {temperature: 1e400}\n" + w, "routing.temperature: must be a finite number, got 1e400");
        cases.put("workers: [{name: a, approximate: 6e2}]\n", "workers[0].approximate: must be true or false, got 6e2");
        cases.forEach((yaml, message) -> assertThatThrownBy(() -> ConfigLoader.parse(yaml, dir))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(message)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("600").doesNotContain("62.5").doesNotContain("70000")));
    }

    /** Numbers still load as their values: keeping the text changes no setting. */
    @Test
    void numbersWrittenInOtherFormsLoadAsTheirValues() {
        SelectorConfig c = ConfigLoader.parse("workers: [{name: a, kvCapacityTokens: 4e5}, {name: b, kvCapacityTokens: 400_000}]\n"
                + "server: {port: 0x1F90}\n", dir);
        assertThat(c.selector().workers()).extracting(WorkerSpec::kvCapacityTokens).containsExactly(400_000L, 400_000L);
        assertThat(c.server().port()).isEqualTo(8080);
    }

    /**
     * A name or secret written as a bare YAML number was Jackson's rewrite of it: worker 007 was served as "7", scope 0123
     * as "83" (octal), model 3.10 as "3.1" (in every block hash's salt), a truststore password 0123 as "83". Refused
     * now, naming the key and never the value; a number stays natural for other client settings.
     */
    @Test
    void namesAndSecretsWrittenAsBareNumbersAreRefusedNotRewritten() {
        bad("workers: [{name: 007}]\n", "workers[0].name: must be a string; quote it", "007 reads as 7");
        bad("workers: {count: 1}\nmodel: {name: 3.10}\n", "model.name: must be a string; quote it");
        bad("workers: {count: 1}\nkafka: {bootstrapServers: 'h:1', scope: 0123}\n", "kafka.scope: must be a string");
        bad("workers: {count: 1, namePrefix: true}\n", "workers.namePrefix: must be a string; quote it (YAML reads a "
                + "bare boolean");
        assertThatThrownBy(() -> ConfigLoader.parse("workers: {count: 1}\nkafka: {bootstrapServers: 'h:1', properties: "
                + "{ssl.truststore.password: 0123}}\n", dir)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("kafka.properties.ssl.truststore.password: must be a string; quote it")
                .hasMessageNotContaining("83").hasMessageNotContaining("0123");
        SelectorConfig ok = ConfigLoader.parse("workers: [{name: '007'}]\nkafka: {bootstrapServers: 'h:1', properties: "
                + "{linger.ms: 5, ssl.truststore.password: '0123'}}\n", dir);
        assertThat(ok.selector().workers().get(0).name()).isEqualTo("007");
        assertThat(ok.kafka().properties()).containsEntry("linger.ms", "5").containsEntry("ssl.truststore.password",
                "0123");
    }

    /** The generated names have the list form's bound: the fitting job dead-letters the records of longer ones. */
    @Test
    void aNamePrefixIsBoundAsWorkerNamesAre() {
        bad("workers: {count: 2, namePrefix: " + "x".repeat(400) + "}\n",
                "workers.namePrefix: a worker name (namePrefix and its number) has at most 256 characters, got 401");
        assertThat(ConfigLoader.parse("workers: {count: 10, namePrefix: " + "x".repeat(255) + "}\n", dir).selector()
                .workers().get(9).name()).hasSize(256);
        bad("workers: {count: 11, namePrefix: " + "x".repeat(255) + "}\n", "has at most 256 characters, got 257");
    }

    /** A client setting no Kafka client knows did nothing without a word; one that overrides kafka.decisions likewise. */
    @Test
    void aMistypedOrOverridingClientSettingIsWarnedOf() {
        SelectorConfig c = ConfigLoader.parse("workers: {count: 1}\nkafka: {bootstrapServers: 'h:1', properties: "
                + "{securty.protocol: SASL_SSL, linger.ms: 5, security.protocol: PLAINTEXT}}\n", dir);
        assertThat(c.warnings()).containsExactly(
                "kafka.properties: 'securty.protocol' is no setting of a Kafka client (a typo?): Kafka ignores it unless a plugin reads it",
                "kafka.properties: 'linger.ms' overrides kafka.decisions.linger for the decisions producer (and is not "
                        + "checked as that is); set kafka.decisions.linger instead");
    }

    /** A YAML error says what and where, without SnakeYAML's snippet of the line: it quoted an inline password. */
    @Test
    void aYamlErrorNeverQuotesTheLine() {
        String yaml = "workers: {count: 1}\nkafka:\n  bootstrapServers: 'h:1'\n  properties:\n    sasl.jaas.config: \"x "
                + "required username=\"op\" password=\"TOPSECRET123\";\"\n";
        assertThatThrownBy(() -> ConfigLoader.parse(yaml, dir)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("not valid YAML: while parsing a block mapping at line 5, column 5: expected "
                        + "<block end>, but found '<scalar>' at line 5, column ")
                .hasMessageNotContaining("TOPSECRET123").hasMessageNotContaining("username");
        bad("a: b: c\n", "not valid YAML: mapping values are not allowed here at line 1, column 5");
    }

    @Test
    void missingAndEmpty() {
        bad("model: {name: m}\n", "workers: is required");
        bad("", "the document is empty");
        bad("workers: [{name: a}\n", "not valid YAML");
    }

    /** A second document or JSON value was dropped without a word, with the access settings it held. */
    @Test
    void aSecondDocumentOrContentAfterTheJsonValueIsRefusedNamingItsLine() throws Exception {
        Path yaml = Files.writeString(dir.resolve("two.yaml"),
                "workers:\n  - {name: w0}\n---\naccess: {data: token}\nrouting: {temperature: banana}\n");
        assertThatThrownBy(() -> ConfigLoader.load(yaml)).isInstanceOf(ConfigException.class).hasMessage(yaml
                + ": more than one YAML document (a second one starts at line 3); put every setting in one document");
        Path json = Files.writeString(dir.resolve("two.json"), "{\"workers\": [{\"name\": \"w0\"}]} {\"access\": {}}\n");
        assertThatThrownBy(() -> ConfigLoader.load(json)).isInstanceOf(ConfigException.class).hasMessage(json
                + ": more than one JSON value (a second one starts at line 1, column 31); put every setting in one JSON object");
        Path trailing = Files.writeString(dir.resolve("trailing.json"), "{\"workers\": [{\"name\": \"w0\"}]}\ntrailing\n");
        assertThatThrownBy(() -> ConfigLoader.load(trailing)).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(trailing + ": unexpected content after the end of the JSON value (line 2, ")
                .hasMessageContaining("'trailing'");
        // the marker's line, not the first key's; after a flow value; a CRLF file; an empty first one
        bad("workers: [{name: a}]\n# one\n---\n# two\n\naccess: {data: token}\n", "a second one starts at line 3");
        bad("{workers: [{name: a}]}\n--- {access: {data: token}}\n", "a second one starts at line 2");
        bad("workers: [{name: a}]\r\n# one\r\n--- # two\r\naccess: {data: token}\r\n", "a second one starts at line 3");
        bad("---\n---\nworkers: [{name: a}]\n", "a second one starts at line 2");
        bad("workers: [{name: a}]\n...\naccess: {data: token}\n", "not valid YAML", "<document start>");
    }

    @Test
    void oneDocumentWithALeadingMarkerOrTrailingCommentsStillLoads() throws Exception {
        String doc = "workers: [{name: a}]\naccess: {data: token}\n";
        for (String text : new String[] {"---\n" + doc, doc + "# the end\n\n", "# head\n--- # one\n" + doc + "...\n# tail\n",
                doc + "---\n", doc + "--- # concatenated output\n---\n"}) { // empty documents after it hold nothing
            assertThat(ConfigLoader.parse(text, dir).access().data()).as(text).isEqualTo(AccessSettings.Mode.TOKEN);
        }
        Path json = Files.writeString(dir.resolve("one.json"), "{\"workers\": [{\"name\": \"a\"}]}\n \n");
        assertThat(ConfigLoader.load(json).selector().workers()).hasSize(1);
        Path empty = Files.writeString(dir.resolve("empty.yaml"), "# nothing yet\n");
        assertThatThrownBy(() -> ConfigLoader.load(empty)).hasMessage(empty + ": the document is empty; expected a mapping of settings");
    }

    @Test
    void aFileThatIsNotUtf8IsNotValidYamlWithoutAJavaClassName() throws Exception {
        java.nio.file.Path f = java.nio.file.Files.write(dir.resolve("garbage.yaml"), new byte[] {(byte) 0xff, (byte) 0xfe, 0, 'x'});
        assertThatThrownBy(() -> ConfigLoader.load(f)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("not valid YAML").hasMessageContaining("Invalid UTF-8 start byte 0xff")
                .hasMessageNotContaining("java.");
    }

    @Test
    void unknownKeysAreNamedWithASuggestion() {
        bad("workers: [{name: a}]\nrouting: {temprature: 1}\n", "routing.temprature: unknown key (did you mean 'temperature'?)");
        bad("workerz: [{name: a}]\n", "workerz: unknown key (did you mean 'workers'?)");
        bad("workers: [{name: a, kvCapacity: 5}]\n", "workers[0].kvCapacity: unknown key");
        bad("parameters: {alpha_p: 1}\nworkers: [{name: a}]\n", "parameters.alpha_p: unknown key");
    }

    @Test
    void durations() {
        bad("routing: {approximateTtl: 120}\nworkers: [{name: a}]\n", "routing.approximateTtl: must be a duration with a unit");
        bad("routing: {requestMaxAge: 5 parsecs}\nworkers: [{name: a}]\n", "routing.requestMaxAge", "'5 parsecs'");
        bad("routing: {maxQueueWait: 0s}\nworkers: [{name: a}]\n", "routing.maxQueueWait: must be longer than 0");
        SelectorConfig c = ConfigLoader.parse("routing: {approximateTtl: 1.5h, maxQueueWait: 250ms}\nworkers: [{name: a}]\n", dir);
        assertThat(c.selector().approximateTtl()).isEqualTo(Duration.ofMinutes(90));
        assertThat(c.selector().maxQueueWait()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void computingClaimsAreOffUntilTurnedOnAndTheirTtlIsADuration() {
        SelectorConfig off = ConfigLoader.parse("workers: [{name: a}]\n", dir);
        assertThat(off.selector().computingClaims()).isFalse();
        SelectorConfig on = ConfigLoader.parse("routing: {computingClaims: true, computingClaimTtl: 15s}\nworkers: [{name: a}]\n", dir);
        assertThat(on.selector().computingClaims()).isTrue();
        assertThat(on.selector().computingClaimTtl()).isEqualTo(Duration.ofSeconds(15));
        bad("routing: {computingClaims: yes please}\nworkers: [{name: a}]\n", "routing.computingClaims: must be true or false");
        bad("routing: {computingClaimTtl: 0s}\nworkers: [{name: a}]\n", "routing.computingClaimTtl: must be longer than 0");
    }

    @Test
    void rhoMaxAgeIsZeroForNeverOrAtLeastFiveSeconds() {
        String kafka = "workers: [{name: a}]\nkafka: {bootstrapServers: \"h:9092\", params: {rhoMaxAge: %s}}\n";
        assertThat(ConfigLoader.parse("workers: [{name: a}]\nkafka: {bootstrapServers: \"h:9092\"}\n", dir).kafka()
                .params().rhoMaxAge()).as("default").isEqualTo(Duration.ofSeconds(60));
        assertThat(ConfigLoader.parse(kafka.formatted("0s"), dir).kafka().params().rhoMaxAge()).isZero();
        assertThat(ConfigLoader.parse(kafka.formatted("5s"), dir).kafka().params().rhoMaxAge())
                .isEqualTo(Duration.ofSeconds(5));
        bad(kafka.formatted("2s"), "kafka.params.rhoMaxAge: must be 0s (rho never ages) or at least 5s");
        bad(kafka.formatted("-1s"), "kafka.params.rhoMaxAge: must be a duration");
    }

    @Test
    void replicaSyncIsOffUntilTurnedOnAndItsBoundsNameTheField() {
        String kafka = "workers: [{name: a}]\nkafka: {bootstrapServers: \"h:9092\", replicaSync: {%s}}\n";
        assertThat(ConfigLoader.parse("workers: [{name: a}]\nkafka: {bootstrapServers: \"h:9092\"}\n", dir).kafka()
                .replicaSync()).isEqualTo(KafkaSettings.ReplicaSync.DEFAULTS);
        assertThat(KafkaSettings.ReplicaSync.DEFAULTS.enabled()).isFalse();
        assertThat(ConfigLoader.parse(kafka.formatted("enabled: true, lookback: 0s, pendingMaxAge: 5s, bufferSize: 9"),
                dir).kafka().replicaSync()).isEqualTo(new KafkaSettings.ReplicaSync(true, Duration.ZERO,
                Duration.ofSeconds(5), 9));
        bad(kafka.formatted("enabled: true, lookback: 2h"), "kafka.replicaSync.lookback: must be between 0s and 3600s");
        bad(kafka.formatted("enabled: true, pendingMaxAge: 0s"), "kafka.replicaSync.pendingMaxAge: must be between 1s");
        bad(kafka.formatted("enabled: true, bufferSize: 0"), "kafka.replicaSync.bufferSize");
        bad(kafka.formatted("enabled: true, peers: 2"), "kafka.replicaSync", "peers");
        assertThat(ConfigLoader.parse(kafka.formatted("lookback: 1m"), dir).warnings()).anySatisfy(w -> assertThat(w).contains("kafka.replicaSync.lookback")
                .contains("while kafka.replicaSync.enabled is false"));
    }

    @Test
    void theDirectReplicaPathIsOffUntilListenAndPeersAreGiven() {
        String kafka = "workers: [{name: a}]\nkafka: {bootstrapServers: \"h:9092\", replicaSync: {enabled: true, "
                + "direct: {%s}}}\n";
        assertThat(KafkaSettings.ReplicaSync.DEFAULTS.direct().enabled()).isFalse();
        KafkaSettings.Direct d = ConfigLoader.parse(kafka.formatted("listen: \"0.0.0.0:7411\", peers: "
                + "[\"selector-0.selectors:7411\", \"[fd00::1]:7411\"], keyEnv: MY_KEY, maxAge: 2s, bufferSize: 10"), dir)
                .kafka().replicaSync().direct();
        assertThat(d).isEqualTo(new KafkaSettings.Direct(new KafkaSettings.HostPort("0.0.0.0", 7411),
                List.of(new KafkaSettings.HostPort("selector-0.selectors", 7411),
                        new KafkaSettings.HostPort("fd00::1", 7411)), "MY_KEY", Duration.ofSeconds(2), 10));
        assertThat(d.enabled()).isTrue();
        assertThat(d.peers().get(1)).hasToString("[fd00::1]:7411");
        KafkaSettings.Direct defaults = ConfigLoader.parse(kafka.formatted("listen: \"h:1\", peers: [\"h:1\"]"), dir)
                .kafka().replicaSync().direct();
        assertThat(defaults.keyEnv()).isEqualTo("TIERROUTE_REPLICA_KEY");
        assertThat(defaults.maxAge()).isEqualTo(Duration.ofSeconds(5));

        bad(kafka.formatted("peers: [\"h:1\"]"), "kafka.replicaSync.direct.listen");
        bad(kafka.formatted("listen: \"h:1\""), "kafka.replicaSync.direct.peers");
        bad(kafka.formatted("listen: \"h:1\", peers: []"), "kafka.replicaSync.direct.peers: must be a non-empty list");
        bad(kafka.formatted("listen: \"h\", peers: [\"h:1\"]"), "kafka.replicaSync.direct.listen: expected host:port, got 'h'");
        bad(kafka.formatted("listen: \"h:1\", peers: [\"h:70000\"]"), "kafka.replicaSync.direct.peers[0]",
                "must be 1-65535");
        bad(kafka.formatted("listen: \"h:1\", peers: [\"fd00::1:7411\"]"), "an IPv6 address goes in brackets");
        bad(kafka.formatted("listen: \"h:x\", peers: [\"h:1\"]"), "the port of 'h:x' is not a number");
        bad(kafka.formatted("listen: \"h:1\", peers: [\"h:1\"], keyEnv: \"not a name\""),
                "kafka.replicaSync.direct.keyEnv: must be an environment variable name");
        bad(kafka.formatted("listen: \"h:1\", peers: [\"h:1\"], maxAge: 10ms"), "kafka.replicaSync.direct.maxAge",
                "between 100ms and 600s");
        bad(kafka.formatted("listen: \"h:1\", peers: [\"h:1\"], port: 1"), "kafka.replicaSync.direct", "port");
    }

    /**
     * A configuration file's listen port 0 (any free one: no peer could know it) and a peer listed twice (each datagram
     * sent twice, the copy counted as a duplicate Kafka brought first) are refused, naming the field.
     */
    @Test
    void theDirectReplicaPathRefusesListenPortZeroAndAPeerListedTwice() {
        String kafka = "workers: [{name: a}]\nkafka: {bootstrapServers: \"h:9092\", replicaSync: {enabled: true, "
                + "direct: {%s}}}\n";
        bad(kafka.formatted("listen: \"0.0.0.0:0\", peers: [\"h:7411\"]"),
                "kafka.replicaSync.direct.listen: port 0 would take any free port, which no peer can know");
        bad(kafka.formatted("listen: \"h:7411\", peers: [\"a:7411\", \"b:7411\", \"A:7411\"]"),
                "kafka.replicaSync.direct.peers[2]: 'A:7411' is listed twice (also kafka.replicaSync.direct.peers[0])");
        bad(kafka.formatted("listen: \"h:7411\", peers: [\"[fd00::1]:7411\", \"[fd00::1]:7411\"]"),
                "kafka.replicaSync.direct.peers[1]: '[fd00::1]:7411' is listed twice (also kafka.replicaSync.direct.peers[0])");
        String many = java.util.stream.IntStream.range(0, 65).mapToObj(i -> "\"h" + i + ":7411\"")
                .collect(java.util.stream.Collectors.joining(", "));
        bad(kafka.formatted("listen: \"h:7411\", peers: [" + many + "]"),
                "kafka.replicaSync.direct.peers: lists 65 peers; at most 64");
        // One host on two ports is two receivers.
        assertThat(ConfigLoader.parse(kafka.formatted("listen: \"h:7411\", peers: [\"a:7411\", \"a:7412\"]"), dir)
                .kafka().replicaSync().direct().peers()).hasSize(2);
    }

    /** Settings built in code (embedded, tests) get the loader's peer checks; a listen port 0 stays theirs to use. */
    @Test
    void theDirectSettingsCheckTheirPeersAsTheLoaderDoes() {
        KafkaSettings.HostPort any = new KafkaSettings.HostPort("127.0.0.1", 0);
        KafkaSettings.HostPort peer = new KafkaSettings.HostPort("h", 7411);
        Duration maxAge = Duration.ofSeconds(5);
        assertThat(new KafkaSettings.Direct(any, List.of(peer), "K", maxAge, 16).listen().port()).isZero();
        assertThatThrownBy(() -> new KafkaSettings.Direct(any, List.of(peer, new KafkaSettings.HostPort("h", 0)), "K",
                maxAge, 16)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("peer h:0 has port 0");
        assertThatThrownBy(() -> new KafkaSettings.Direct(any, List.of(peer, new KafkaSettings.HostPort("H", 7411)),
                "K", maxAge, 16)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("peer H:7411 is listed twice (also peers[0])");
        List<KafkaSettings.HostPort> many = java.util.stream.IntStream.range(0, 65)
                .mapToObj(i -> new KafkaSettings.HostPort("h" + i, 7411)).toList();
        assertThatThrownBy(() -> new KafkaSettings.Direct(any, many, "K", maxAge, 16))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("65 peers; at most 64");
        assertThat(new KafkaSettings.Direct(any, many.subList(0, 64), "K", maxAge, 16).peers()).hasSize(64);
    }

    @Test
    void ownKvAccountingIsOffUntilTurnedOn() {
        assertThat(ConfigLoader.parse("workers: [{name: a}]\n", dir).selector().ownKvAccounting()).isFalse();
        assertThat(ConfigLoader.parse("routing: {ownKvAccounting: true}\nworkers: [{name: a}]\n", dir).selector()
                .ownKvAccounting()).isTrue();
        bad("routing: {ownKvAccounting: 1}\nworkers: [{name: a}]\n", "routing.ownKvAccounting: must be true or false");
    }

    @Test
    void lateBindingIsOffUntilALimitIsGiven() {
        assertThat(ConfigLoader.parse("workers: [{name: a}]\n", dir).selector().holdAtWaiting()).isZero();
        assertThat(ConfigLoader.parse("routing: {holdAtWaiting: 1}\nworkers: [{name: a}]\n", dir).selector().holdAtWaiting())
                .isEqualTo(1);
        bad("routing: {holdAtWaiting: -1}\nworkers: [{name: a}]\n", "routing.holdAtWaiting", "-1");
        bad("routing: {holdAtWaiting: 1.5}\nworkers: [{name: a}]\n", "routing.holdAtWaiting: must be a whole number");
        // Both keys named as the file writes them (routing.…), the error at the key that holds: the message said
        // "holdAtWaiting 1 … maxQueued 0", keys without their section.
        badExactly("routing: {holdAtWaiting: 1, maxQueued: 0}\nworkers: [{name: a}]\n",
                "routing.holdAtWaiting: 1 holds requests in the admission queue, which routing.maxQueued 0 turns off: "
                        + "every held request would be refused");
        badExactly("routing: {maxQueued: 0, holdAtWaiting: 3, holdAtCheapestWaiting: 2}\nworkers: [{name: a}]\n",
                "routing.holdAtWaiting: 3 holds requests in the admission queue, which routing.maxQueued 0 turns off: "
                        + "every held request would be refused");
        assertThatThrownBy(() -> ConfigLoader.parse("{\"routing\": {\"holdAtWaiting\": 1, \"maxQueued\": 0}, "
                + "\"workers\": [{\"name\": \"a\"}]}", dir)).as("JSON: the same keys")
                .isInstanceOf(ConfigException.class).satisfies(e -> {
                    assertThat(((ConfigException) e).path()).isEqualTo("routing.holdAtWaiting");
                    assertThat(((ConfigException) e).problem()).contains("routing.maxQueued 0");
                });

        assertThat(ConfigLoader.parse("workers: [{name: a}]\n", dir).selector().holdAtCheapestWaiting()).isZero();
        assertThat(ConfigLoader.parse("routing: {holdAtWaiting: 1, holdAtCheapestWaiting: 2}\nworkers: [{name: a}]\n", dir)
                .selector().holdAtCheapestWaiting()).isEqualTo(2);
        bad("routing: {holdAtCheapestWaiting: -1}\nworkers: [{name: a}]\n", "routing.holdAtCheapestWaiting", "-1");
        badExactly("routing: {holdAtCheapestWaiting: 2, maxQueued: 0}\nworkers: [{name: a}]\n",
                "routing.holdAtCheapestWaiting: 2 holds requests in the admission queue, which routing.maxQueued 0 "
                        + "turns off: every held request would be refused");

        assertThat(ConfigLoader.parse("workers: [{name: a}]\n", dir).selector().spreadWithin())
                .isEqualTo(SelectorSettings.SPREAD_WITHIN);
        assertThat(ConfigLoader.parse("routing: {spreadWithin: 0}\nworkers: [{name: a}]\n", dir).selector()
                .spreadWithin()).as("off").isZero();
        assertThat(ConfigLoader.parse("routing: {spreadWithin: 8}\nworkers: [{name: a}]\n", dir).selector()
                .spreadWithin()).isEqualTo(8);
        bad("routing: {spreadWithin: -1}\nworkers: [{name: a}]\n", "routing.spreadWithin", "-1");
        bad("routing: {spreadWithin: 2.5}\nworkers: [{name: a}]\n", "routing.spreadWithin: must be a whole number");

        assertThat(ConfigLoader.parse("workers: [{name: a}]\n", dir).selector().holdAtCheapestSilentAfter())
                .isEqualTo(Duration.ofSeconds(10));
        assertThat(ConfigLoader.parse("routing: {holdAtCheapestSilentAfter: 2500ms}\nworkers: [{name: a}]\n", dir)
                .selector().holdAtCheapestSilentAfter()).isEqualTo(Duration.ofMillis(2500));
        assertThat(ConfigLoader.parse("routing: {holdAtCheapestSilentAfter: 0s}\nworkers: [{name: a}]\n", dir)
                .selector().holdAtCheapestSilentAfter()).as("0: never").isZero();
        bad("routing: {holdAtCheapestSilentAfter: 3}\nworkers: [{name: a}]\n", "routing.holdAtCheapestSilentAfter",
                "must be a duration with a unit");
        bad("routing: {holdAtCheapestSilentAfter: -1s}\nworkers: [{name: a}]\n", "routing.holdAtCheapestSilentAfter",
                "-1s");
    }

    @Test
    void theQueueIsAgedByDefaultAndItsWeightIsChecked() {
        assertThat(ConfigLoader.parse("workers: [{name: a}]\n", dir).selector().queueAgeWeight()).isEqualTo(0.3);
        assertThat(ConfigLoader.parse("routing: {queueAgeWeight: 0}\nworkers: [{name: a}]\n", dir).selector()
                .queueAgeWeight()).as("0: cheapest first, unaged").isZero();
        bad("routing: {queueAgeWeight: -0.1}\nworkers: [{name: a}]\n", "routing.queueAgeWeight", "-0.1");
        bad("routing: {queueAgeWeight: 5000}\nworkers: [{name: a}]\n", "routing.queueAgeWeight", "5000");
        bad("routing: {queueAgeWeight: soon}\nworkers: [{name: a}]\n", "routing.queueAgeWeight");
    }

    @Test
    void aQueuedRequestIsOverdueAfterItsDefaultOrConfiguredWaitAndZeroTurnsThatOff() {
        assertThat(ConfigLoader.parse("workers: [{name: a}]\n", dir).selector().queueOverdueAfter())
                .isEqualTo(Duration.ofSeconds(SelectorSettings.OVERDUE_AFTER_SECONDS));
        assertThat(ConfigLoader.parse("routing: {queueOverdueAfter: 5s}\nworkers: [{name: a}]\n", dir).selector()
                .queueOverdueAfter()).isEqualTo(Duration.ofSeconds(5));
        assertThat(ConfigLoader.parse("routing: {queueOverdueAfter: 0s}\nworkers: [{name: a}]\n", dir).selector()
                .queueOverdueAfter()).as("0: never overdue").isZero();
        bad("routing: {queueOverdueAfter: -1s}\nworkers: [{name: a}]\n", "routing.queueOverdueAfter", "-1s");
        bad("routing: {queueOverdueAfter: 15}\nworkers: [{name: a}]\n", "routing.queueOverdueAfter",
                "must be a duration with a unit");
        bad("routing: {queueOverdueAfter: 400d}\nworkers: [{name: a}]\n", "routing.queueOverdueAfter", "at most a year");
        assertThat(ConfigLoader.parse("routing: {queueOverdueAfter: 40s}\nworkers: [{name: a}]\n", dir).warnings())
                .containsExactly("routing.queueOverdueAfter has no effect at or above routing.maxQueueWait (a request is "
                        + "refused before it is overdue)");
    }

    @Test
    void fileErrorsNameTheFile() throws Exception {
        assertThatThrownBy(() -> ConfigLoader.load(dir.resolve("missing.yaml")))
                .hasMessageContaining("missing.yaml").hasMessageContaining("file not found");
        Path f = dir.resolve("bad.yaml");
        Files.writeString(f, "workers: [{name: a, tiers: {cpu: -1}}]\n");
        assertThatThrownBy(() -> ConfigLoader.load(f))
                .isInstanceOf(ConfigException.class)
                .hasMessage(f + ": workers[0].tiers.cpu: must be a number > 0 bytes/s, got -1")
                .extracting(e -> ((ConfigException) e).path()).isEqualTo("workers[0].tiers.cpu");
        Files.writeString(dir.resolve("sel.yaml"), "workers: [{name: a}]\nparametersFile: nope.yaml\n");
        assertThatThrownBy(() -> ConfigLoader.load(dir.resolve("sel.yaml")))
                .hasMessageContaining("parametersFile: cannot load the parameter file").hasMessageContaining("nope.yaml");
        // A path no file system takes names its field, not "a defect of tierroute".
        Files.writeString(dir.resolve("sel.yaml"), "workers: [{name: a}]\nparametersFile: \"a\\0b\"\n");
        assertThatThrownBy(() -> ConfigLoader.load(dir.resolve("sel.yaml"))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("parametersFile: is not a usable file path");
        Files.writeString(dir.resolve("sel.yaml"), "workers: [{name: a}]\nserver: {tls: {keyStore: \"k\\0s\"}}\n");
        assertThatThrownBy(() -> ConfigLoader.load(dir.resolve("sel.yaml"))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("server.tls.keyStore: is not a usable file path");
        // A directory is readable: it passed the load and failed the start (exit 1) as a store "not there".
        Files.createDirectories(dir.resolve("stores"));
        Files.writeString(dir.resolve("sel.yaml"), "workers: [{name: a}]\nserver: {tls: {keyStore: stores}}\n");
        assertThatThrownBy(() -> ConfigLoader.load(dir.resolve("sel.yaml"))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("server.tls.keyStore: the key store " + dir.resolve("stores") + " is a directory");
    }
}
