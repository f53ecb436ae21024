package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** The dashboard command's security flags: documented, and a named secret that is not set is a usage error. */
class DashboardCommandTest {

    private static final String UNSET = "TIERROUTE_TEST_UNSET_VARIABLE_7f3a";

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return TierrouteCommand.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
    }

    @Test
    void helpExplainsClosedReadsAndHttps() {
        assertThat(run("dashboard", "--help")).isZero();
        assertThat(out.toString()).contains("--read-token-env").contains("--tls-keystore")
                .contains("--tls-keystore-password-env").contains("--token-env");
    }

    @Test
    void aReadTokenVariableThatIsNotSetIsRefusedBeforeAnythingStarts() {
        assertThat(System.getenv(UNSET)).isNull();
        assertThat(run("dashboard", "--bootstrap", "127.0.0.1:9", "--read-token-env", UNSET)).isEqualTo(2);
        assertThat(err.toString()).contains("--read-token-env " + UNSET).contains("not set");
    }

    @Test
    void aKeyStoreWithoutItsPasswordVariableIsRefused() {
        assertThat(run("dashboard", "--bootstrap", "127.0.0.1:9", "--tls-keystore", "ks.p12",
                "--tls-keystore-password-env", UNSET)).isEqualTo(2);
        assertThat(err.toString()).contains("--tls-keystore").contains(UNSET);
    }
}
