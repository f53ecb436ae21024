package io.tierroute.deploy.kafka;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The SASL/PLAIN broker with the StandardAuthorizer: ACLs decide who may write. */
class EmbeddedKafkaSaslTest {

    private static EmbeddedKafka kafka;

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.startWithSasl(new EmbeddedKafka.Sasl("admin", "admin-secret",
                Map.of("operator", "operator-secret", "reader", "reader-secret")), Map.of());
        kafka.createTopic("guarded", 1, Map.of());
        kafka.grant("operator", "guarded", AclOperation.WRITE, AclOperation.DESCRIBE);
        kafka.grant("reader", "guarded", AclOperation.READ, AclOperation.DESCRIBE);
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    private static void send(Properties creds) throws Exception {
        Properties p = new Properties();
        p.putAll(creds);
        p.put("bootstrap.servers", kafka.bootstrapServers());
        p.put("max.block.ms", "10000");
        p.put("delivery.timeout.ms", "10000");
        p.put("request.timeout.ms", "5000");
        p.put("linger.ms", "0");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
                new StringSerializer())) {
            producer.send(new ProducerRecord<>("guarded", "k", "v")).get(15, TimeUnit.SECONDS);
        }
    }

    @Test
    void theOperatorMayWrite() throws Exception {
        assertThat(kafka.secured()).isTrue();
        send(kafka.clientProperties("operator", "operator-secret"));
    }

    @Test
    void aReaderIsNotAuthorisedToWrite() {
        assertThatThrownBy(() -> send(kafka.clientProperties("reader", "reader-secret")))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(AuthorizationException.class); // cluster (producer id) or topic
    }

    @Test
    void aWrongPasswordFailsAuthentication() {
        assertThatThrownBy(() -> send(kafka.clientProperties("operator", "guess")))
                .hasRootCauseInstanceOf(SaslAuthenticationException.class);
    }
}
