package io.tierroute.cli;

import io.tierroute.deploy.kafka.EmbeddedKafka;
import io.tierroute.deploy.local.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A transaction timeout the broker refuses is said at submit: the job's params producer would otherwise be refused at
 * its first checkpoint and the job restart until it gave up (an operator audit: about 20 restarts).
 */
class SubmitTransactionTimeoutTest {

    @TempDir
    Path dir;

    @Test
    void theJobsTimeoutIsComparedWithTheBrokersLimitInEveryFormItIsGiven() {
        OptionalLong twoHours = OptionalLong.of(7_200_000);
        assertThat(SubmitAdvice.transactionTimeoutRefusal(List.of("--transaction-timeout", "3h"), twoHours))
                .hasValueSatisfying(why -> assertThat(why).contains("--transaction-timeout 3h")
                        .contains("transaction.max.timeout.ms, 7200000 ms").contains("-- --transaction-timeout 120m"));
        assertThat(SubmitAdvice.transactionTimeoutRefusal(List.of("--transaction-timeout=PT3H"), twoHours)).isPresent();
        assertThat(SubmitAdvice.transactionTimeoutRefusal(List.of("--transaction-timeout", "90m"), twoHours)).isEmpty();
        assertThat(SubmitAdvice.transactionTimeoutRefusal(List.of(), OptionalLong.of(60_000)))
                .as("the job's default, 10 min, against a broker that allows 1 min")
                .hasValueSatisfying(why -> assertThat(why).contains("(its default)"));
        assertThat(SubmitAdvice.transactionTimeoutRefusal(List.of("--transaction-timeout", "soon"), twoHours))
                .as("a value the job cannot parse is the job's to report").isEmpty();
        assertThat(SubmitAdvice.transactionTimeoutRefusal(List.of("--transaction-timeout", "3h"), OptionalLong.empty()))
                .as("a broker that does not say").isEmpty();
    }

    @Test
    void submitRefusesItAgainstARealBrokerBeforeAskingFlink() throws Exception {
        Path jar = Files.writeString(dir.resolve("job.jar"), "only its existence is checked before Kafka");
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int rc = TierrouteCommand.execute(new String[] {"submit", "--flink", "http://127.0.0.1:" + LoopbackPorts.free(),
                    "--bootstrap", kafka.bootstrapServers(), "--jar", jar.toString(), "--", "--transaction-timeout", "3h"},
                    new PrintWriter(out, true), new PrintWriter(err, true));
            assertThat(rc).as(err.toString()).isEqualTo(1);
            assertThat(err.toString()).contains("is longer than the broker's transaction.max.timeout.ms, "
                    + EmbeddedKafka.MAX_TRANSACTION_TIMEOUT_MS + " ms").doesNotContain("Flink");
        }
    }
}
