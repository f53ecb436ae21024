package io.tierroute.selector.config;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.util.Map;

/**
 * Checks one extra Kafka client setting against Kafka's own definitions of the consumer's and the producer's settings,
 * so that a value Kafka refuses ({@code security.protocol: BOGUS}, {@code request.timeout.ms: soon}) stops the start
 * instead of failing every consumer the parameter loader makes, which it retries as an outage. Parsed only: nothing is
 * resolved or contacted, and a config provider's placeholder ({@code ${env:X}}) is left for the client to resolve. A
 * key neither client defines is warned of by the loader. {@code sasl.jaas.config}, a string to Kafka's definitions, is
 * parsed as Kafka's login does (a missing ';' failed the start with a message naming neither key nor file, or, the
 * decisions off, every session of the loader for ever). Messages never quote the value.
 */
public final class KafkaClientValues {

    /** The settings each client requires, so that only the one checked can fail (bootstrap.servers is ours). */
    private static final String PLACEHOLDER_BOOTSTRAP = "localhost:9092";

    private KafkaClientValues() {
    }

    /**
     * Whether no Kafka client (producer, consumer, admin) defines {@code key}: a typo, which Kafka says only at INFO
     * and which does nothing. A config provider's own settings ({@code config.providers.*}) are the provider's.
     */
    public static boolean unknown(String key) {
        return !key.startsWith("config.providers")
                && !ProducerConfig.configNames().contains(key)
                && !ConsumerConfig.configNames().contains(key)
                && !org.apache.kafka.clients.admin.AdminClientConfig.configNames().contains(key);
    }

    /** Kafka's reason for refusing {@code value} for {@code key}, without the value; null when it takes it. */
    public static String problem(String key, String value) {
        if (value.contains("${")) { // a config provider's placeholder (${env:X}, ${file:...}): the client resolves it
            return null;
        }
        if (key.equals(org.apache.kafka.common.config.SaslConfigs.SASL_JAAS_CONFIG)) {
            try {
                org.apache.kafka.common.security.JaasContext.loadClientContext(Map.of(key,
                        new org.apache.kafka.common.config.types.Password(value)));
            } catch (IllegalArgumentException e) {
                // Kafka's reason, without the words of the value it quotes ("control flag 'requird'")
                return "Kafka refuses its value: " + String.valueOf(e.getMessage()).replaceAll(" '[^']*'", "");
            }
        }
        String consumer = problem(ConsumerConfig.configDef(), key, value, Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, PLACEHOLDER_BOOTSTRAP,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName()));
        return consumer != null ? consumer : problem(ProducerConfig.configDef(), key, value, Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, PLACEHOLDER_BOOTSTRAP,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()));
    }

    private static String problem(ConfigDef def, String key, String value, Map<String, String> required) {
        if (!def.names().contains(key) || required.containsKey(key)) {
            return null;
        }
        Map<String, String> one = new java.util.HashMap<>(required);
        one.put(key, value);
        try {
            def.parse(one);
            return null;
        } catch (ConfigException e) {
            // Kafka's text is "Invalid value <value> for configuration <key>: <reason>"; only the reason is repeated.
            String text = String.valueOf(e.getMessage());
            String marker = "for configuration " + key + ": ";
            int at = text.indexOf(marker);
            return at < 0 ? "Kafka refuses its value" : "Kafka refuses its value: " + text.substring(at + marker.length());
        }
    }
}
