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

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
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

    /**
     * Refused for a cluster (producer id) or topic authorisation. Where the refusal shows depends on a race in
     * the idempotent producer: if the send's future is created first, get() throws it wrapped in an
     * ExecutionException; if the producer's own InitProducerId met the refusal first, send() itself throws
     * "in an error state" with the refusal as its cause (a CI run saw that).
     */
    @Test
    void aReaderIsNotAuthorisedToWrite() {
        assertThatThrownBy(() -> send(kafka.clientProperties("reader", "reader-secret")))
                .satisfies(e -> assertThat(causeChain(e)).as("the exception and its causes")
                        .anyMatch(AuthorizationException.class::isInstance));
    }

    private static List<Throwable> causeChain(Throwable e) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable t = e; t != null && !chain.contains(t); t = t.getCause()) {
            chain.add(t);
        }
        return chain;
    }

    @Test
    void aWrongPasswordFailsAuthentication() {
        assertThatThrownBy(() -> send(kafka.clientProperties("operator", "guess")))
                .hasRootCauseInstanceOf(SaslAuthenticationException.class);
    }
}
