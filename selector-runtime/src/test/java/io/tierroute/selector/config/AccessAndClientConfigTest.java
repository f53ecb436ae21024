package io.tierroute.selector.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@code access:} section and {@code kafka.propertiesFile}. */
class AccessAndClientConfigTest {

    private static final String W = "workers: {count: 1}\n";

    @TempDir
    Path dir;

    @Test
    void accessIsOpenByDefaultAndClosable() {
        assertThat(ConfigLoader.parse(W, dir).access()).isEqualTo(AccessSettings.DEFAULTS);
        AccessSettings a = ConfigLoader.parse(W + "access: {read: token, readTokenEnv: R_TOKEN, data: token}\n", dir)
                .access();
        assertThat(a).isEqualTo(new AccessSettings(AccessSettings.Mode.TOKEN, "R_TOKEN", AccessSettings.Mode.TOKEN,
                "TIERROUTE_DATA_TOKEN"));
        assertThatThrownBy(() -> ConfigLoader.parse(W + "access: {read: closed}\n", dir))
                .isInstanceOf(ConfigException.class).hasMessageContaining("access.read").hasMessageContaining("open or token");
        assertThatThrownBy(() -> ConfigLoader.parse(W + "access: {readTokenEnv: 'not a name'}\n", dir))
                .isInstanceOf(ConfigException.class).hasMessageContaining("access.readTokenEnv");
        assertThatThrownBy(() -> ConfigLoader.parse(W + "access: {write: token}\n", dir))
                .isInstanceOf(ConfigException.class).hasMessageContaining("write");
    }

    @Test
    void aTokenVariableNamedForAnOpenGroupIsAWarningNamingIt() {
        SelectorConfig open = ConfigLoader.parse(W + "access: {readTokenEnv: R_TOKEN, dataTokenEnv: D_TOKEN}\n", dir);
        assertThat(open.access().read()).isEqualTo(AccessSettings.Mode.OPEN);
        assertThat(open.warnings()).anySatisfy(w -> assertThat(w).startsWith("access.readTokenEnv has no effect while "
                + "access.read is open").contains("set access.read: token to require it"))
                .anySatisfy(w -> assertThat(w).startsWith("access.dataTokenEnv has no effect while access.data is open")
                        .contains("set access.data: token to require it"));
        SelectorConfig closed = ConfigLoader.parse(W + "access: {read: token, readTokenEnv: R_TOKEN, data: token, "
                + "dataTokenEnv: D_TOKEN}\n", dir);
        assertThat(closed.warnings()).noneMatch(w -> w.startsWith("access."));
        assertThat(ConfigLoader.load(Path.of("..", "examples", "selector.yaml")).warnings())
                .noneMatch(w -> w.startsWith("access."));
    }

    @Test
    void kafkaPropertiesFileIsReadAndTheInlineMapWins() throws Exception {
        Files.writeString(dir.resolve("client.properties"), """
                security.protocol=SASL_SSL
                sasl.mechanism=SCRAM-SHA-512
                sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="s" password="p";
                ssl.truststore.location=/etc/tierroute/truststore.p12
                """);
        KafkaSettings k = ConfigLoader.parse(W + "kafka: {bootstrapServers: 'h:9093', propertiesFile: client.properties,"
                + " properties: {sasl.mechanism: PLAIN}}\n", dir).kafka();
        assertThat(k.properties()).containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "PLAIN")
                .containsEntry("ssl.truststore.location", "/etc/tierroute/truststore.p12")
                .containsKey("sasl.jaas.config");
    }

    @Test
    void kafkaPropertiesFileErrorsNameTheKeyNeverAValue() throws Exception {
        Files.writeString(dir.resolve("bad.properties"), "group.id=secret-group-value\n");
        assertThatThrownBy(() -> ConfigLoader.parse(W + "kafka: {bootstrapServers: 'h:1', propertiesFile: bad.properties}\n",
                dir)).isInstanceOf(ConfigException.class).hasMessageContaining("kafka.propertiesFile")
                .hasMessageContaining("'group.id'").hasMessageNotContaining("secret-group-value");
        assertThatThrownBy(() -> ConfigLoader.parse(W + "kafka: {bootstrapServers: 'h:1', propertiesFile: none.properties}\n",
                dir)).isInstanceOf(ConfigException.class).hasMessageContaining("does not exist");
        // Properties.load's own failure and a file in another encoding: said plainly, still never a value.
        Files.writeString(dir.resolve("escape.properties"), "sasl.password=secret-escape\\u00zz\n");
        assertThatThrownBy(() -> ConfigLoader.parse(W + "kafka: {bootstrapServers: 'h:1', propertiesFile: escape.properties}\n",
                dir)).isInstanceOf(ConfigException.class).hasMessageContaining("malformed \\uXXXX escape")
                .hasMessageNotContaining("secret-escape").hasMessageNotContaining("IllegalArgumentException");
        Files.write(dir.resolve("latin1.properties"), "sasl.password=s\u00e9cret\n".getBytes(StandardCharsets.ISO_8859_1));
        assertThatThrownBy(() -> ConfigLoader.parse(W + "kafka: {bootstrapServers: 'h:1', propertiesFile: latin1.properties}\n",
                dir)).isInstanceOf(ConfigException.class).hasMessageContaining("is not UTF-8 text");
        Files.createDirectories(dir.resolve("props.d"));
        assertThatThrownBy(() -> ConfigLoader.parse(W + "kafka: {bootstrapServers: 'h:1', propertiesFile: props.d}\n",
                dir)).isInstanceOf(ConfigException.class).hasMessageContaining("props.d is a directory")
                .hasMessageNotContaining("IOException");
    }

    /** A value Kafka refuses would fail every consumer the loader makes, retried as an outage: refused at load. */
    @Test
    void kafkaClientValuesKafkaRefusesStopTheLoad() throws Exception {
        assertThatThrownBy(() -> ConfigLoader.parse(W + "kafka: {bootstrapServers: 'h:1', properties: "
                + "{security.protocol: BOGUS-PROTOCOL}}\n", dir)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("'security.protocol' in properties: Kafka refuses its value")
                .hasMessageContaining("SASL_SSL").hasMessageNotContaining("BOGUS-PROTOCOL");
        Files.writeString(dir.resolve("acks.properties"), "acks=most\n"); // a producer setting (decision records)
        assertThatThrownBy(() -> ConfigLoader.parse(W + "kafka: {bootstrapServers: 'h:1', propertiesFile: acks.properties}\n",
                dir)).isInstanceOf(ConfigException.class).hasMessageContaining("'acks' in acks.properties")
                .hasMessageNotContaining("most");
        assertThat(ConfigLoader.parse(W + "kafka: {bootstrapServers: 'h:1', properties: {security.protocol: SASL_SSL, "
                + "retries: 3, some.plugin.setting: x, config.providers: env, "
                + "config.providers.env.class: org.apache.kafka.common.config.provider.EnvVarConfigProvider, "
                + "request.timeout.ms: '${env:KAFKA_TIMEOUT}'}}\n", dir).kafka().properties())
                .containsEntry("security.protocol", "SASL_SSL").containsEntry("some.plugin.setting", "x");
        // a JAAS line Kafka's login refuses: said at load, naming the key and the file, quoting none of it
        Files.writeString(dir.resolve("jaas.properties"), "sasl.jaas.config=org.apache.kafka.common.security.plain."
                + "PlainLoginModule requird username=\"op\" password=\"S3CRET\";\n");
        assertThatThrownBy(() -> ConfigLoader.parse(W + "kafka: {bootstrapServers: 'h:1', propertiesFile: jaas.properties}\n",
                dir)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("'sasl.jaas.config' in jaas.properties: Kafka refuses its value: Invalid login "
                        + "module control flag in JAAS config").hasMessageNotContaining("S3CRET").hasMessageNotContaining("requird");
        assertThatThrownBy(() -> ConfigLoader.parse(W + "kafka: {bootstrapServers: 'h:1', properties: {sasl.jaas.config: "
                + "'x.Y required password=\"S3CRET\"'}}\n", dir)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("JAAS config entry not terminated by semi-colon").hasMessageNotContaining("S3CRET");
    }

    @Test
    void theExamplesLoad() {
        Path examples = Path.of("..", "examples");
        SelectorConfig c = ConfigLoader.load(examples.resolve("selector.yaml"));
        assertThat(c.access()).isEqualTo(AccessSettings.DEFAULTS);
        assertThat(c.server().maxHeaders()).isEqualTo(ServerSettings.DEFAULT_MAX_HEADERS);
        ConfigNode at = ConfigNode.root(Documents.parse("x: 1".getBytes(), false));
        assertThat(KafkaPropertiesFile.read(examples.resolve("kafka-client-sasl-ssl.properties"), at))
                .containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsKeys("sasl.jaas.config", "ssl.truststore.location")
                .hasEntrySatisfying("sasl.jaas.config", v -> assertThat(v).startsWith("org.apache.kafka")
                        .contains("password=").endsWith(";"));
    }
}
