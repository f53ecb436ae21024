package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

/** Which error a refused control-record write is reported as (SnapshotsCommandSaslTest sees it on a real broker). */
class SnapshotsKafkaRefusalTest {

    @Test
    void aRefusalBehindTheProducersErrorStateIsFound() {
        // what KafkaProducer.send throws once its own InitProducerId was refused
        TopicAuthorizationException refused = new TopicAuthorizationException("Not authorized to access topics");
        KafkaException errorState = new KafkaException(
                "Cannot execute transactional method because we are in an error state", refused);
        assertThat(SnapshotsKafka.refusalIn(errorState)).isSameAs(refused);

        ClusterAuthorizationException idempotence = new ClusterAuthorizationException("IDEMPOTENT_WRITE");
        assertThat(SnapshotsKafka.refusalIn(new KafkaException(new KafkaException(idempotence)))).isSameAs(idempotence);

        SaslAuthenticationException badPassword = new SaslAuthenticationException("bad password");
        assertThat(SnapshotsKafka.refusalIn(new KafkaException(badPassword))).isSameAs(badPassword);
    }

    @Test
    void anyOtherErrorIsReportedAsItIs() {
        KafkaException other = new KafkaException("something else", new IllegalStateException("inner"));
        assertThat(SnapshotsKafka.refusalIn(other)).isSameAs(other);
        IllegalStateException plain = new IllegalStateException("plain");
        assertThat(SnapshotsKafka.refusalIn(plain)).isSameAs(plain);
    }
}
