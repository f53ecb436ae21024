package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The actor a control record carries: the name given, plus the SASL principal the broker authenticates. */
class SnapshotsActorTest {

    private static SnapshotsKafka kafka(Properties p) {
        return new SnapshotsKafka("localhost:9092", p, Duration.ofSeconds(1));
    }

    private static Properties sasl(String user) {
        Properties p = new Properties();
        p.put("security.protocol", "SASL_PLAINTEXT");
        p.put("sasl.mechanism", "PLAIN");
        p.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
                + user + "\" password=\"secret\";");
        return p;
    }

    @Test
    void aSaslConnectionRecordsTheAuthenticatedPrincipalNextToTheNameGiven() {
        assertThat(kafka(sasl("operator")).recordedActor("oncall")).isEqualTo("oncall (User:operator)");
    }

    @Test
    void aNameThatIsThePrincipalIsNotRepeated() {
        assertThat(kafka(sasl("operator")).recordedActor("operator")).isEqualTo("operator");
        assertThat(kafka(sasl("operator")).recordedActor("User:operator")).isEqualTo("User:operator");
    }

    @Test
    void withoutSaslCredentialsTheNameIsAllThereIs() {
        assertThat(kafka(new Properties()).recordedActor("oncall")).isEqualTo("oncall");
        Properties noUser = sasl("x");
        noUser.put("sasl.jaas.config", "com.example.OtherLoginModule required;");
        assertThat(kafka(noUser).recordedActor("oncall")).as("a principal the CLI cannot name").isEqualTo("oncall");
    }
}
