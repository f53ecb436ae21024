package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
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

    /**
     * A bad --actor or --reason is named alone (the message said "--actor and --reason" for either), before any broker
     * is asked: 127.0.0.1:1 answers nothing.
     */
    @Test
    void aBadActorOrReasonIsRefusedNamingItsOwnFlag() {
        String[][] cases = {
                {"--actor", "x".repeat(501), "--actor is limited to 500 characters, got 501"},
                {"--reason", "y".repeat(600), "--reason is limited to 500 characters, got 600"},
                {"--actor", "oncall\nFAKE", "--actor must be one line of printable text"},
                {"--reason", "ok\u001b[2J", "--reason must be one line of printable text"}};
        for (String[] c : cases) {
            StringWriter err = new StringWriter();
            String actor = c[0].equals("--actor") ? c[1] : "oncall";
            String reason = c[0].equals("--reason") ? c[1] : "a reason";
            int rc = TierrouteCommand.execute(new String[] {"snapshots", "rollback", "--bootstrap", "127.0.0.1:1",
                    "--timeout", "1", "--scope", "s", "--actor", actor, "--reason", reason},
                    new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
            assertThat(rc).as(c[2]).isEqualTo(2);
            assertThat(err.toString()).as(c[2]).contains(c[2])
                    .doesNotContain(c[0].equals("--actor") ? "--reason must" : "--actor must")
                    .doesNotContain("--actor and --reason");
        }
    }

    @Test
    void withoutSaslCredentialsTheNameIsAllThereIs() {
        assertThat(kafka(new Properties()).recordedActor("oncall")).isEqualTo("oncall");
        Properties noUser = sasl("x");
        noUser.put("sasl.jaas.config", "com.example.OtherLoginModule required;");
        assertThat(kafka(noUser).recordedActor("oncall")).as("a principal the CLI cannot name").isEqualTo("oncall");
    }
}
