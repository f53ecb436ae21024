package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

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
                .contains("--tls-keystore-password-env").contains("--token-env")
                .contains("--operator-name").contains("--operator-tokens").contains("sha256sum").doesNotContain("%%s");
    }

    @Test
    void aMalformedOperatorTokensFileIsRefusedBeforeAnythingStarts(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("operators");
        Files.writeString(file, "# operators\nalice my-plain-token\n");
        assertThat(run("dashboard", "--bootstrap", "127.0.0.1:9", "--operator-tokens", file.toString())).isEqualTo(2);
        assertThat(err.toString()).contains(file.toString()).contains("line 2").contains("sha256:")
                .doesNotContain("my-plain-token");
        assertThat(run("dashboard", "--bootstrap", "127.0.0.1:9", "--operator-tokens", dir.resolve("nope").toString()))
                .isEqualTo(2);
        assertThat(err.toString()).contains("not a readable file");
    }

    @Test
    void aBadOperatorNameOrANameOrTokenGivenTwiceIsRefused(@TempDir Path dir) throws Exception {
        assertThat(run("dashboard", "--bootstrap", "127.0.0.1:9", "--token-env", "PATH", "--operator-name",
                "alice smith")).isEqualTo(2);
        assertThat(err.toString()).contains("--operator-name must be 1 to 64 of letters").contains("'alice smith'");
        err.getBuffer().setLength(0);
        assertThat(run("dashboard", "--bootstrap", "127.0.0.1:9", "--token-env", "PATH", "--operator-name",
                "3f9a".repeat(16))).as("a token in the name's place").isEqualTo(2);
        assertThat(err.toString()).contains("--operator-name looks like a token").doesNotContain("3f9a".repeat(4));
        assertThat(run("dashboard", "--bootstrap", "127.0.0.1:9", "--token-env", UNSET, "--operator-name", "alice"))
                .as("a name for a token that is not set").isEqualTo(2);
        assertThat(err.toString()).contains("--operator-name alice").contains(UNSET).contains("not set");
        // PATH is always set: it stands in for the --token-env token, held by alice.
        Path file = dir.resolve("operators");
        Files.writeString(file, "alice sha256:" + "ab".repeat(32) + "\n");
        assertThat(run("dashboard", "--bootstrap", "127.0.0.1:9", "--token-env", "PATH", "--operator-name", "alice",
                "--operator-tokens", file.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("operator 'alice' is configured twice (the token in PATH and operator "
                + "tokens file " + file + " line 1)");
        Files.writeString(file, "bob sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(System.getenv("PATH").getBytes(StandardCharsets.UTF_8))) + "\n");
        assertThat(run("dashboard", "--bootstrap", "127.0.0.1:9", "--token-env", "PATH", "--operator-name", "alice",
                "--operator-tokens", file.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("operators 'alice' and 'bob' have the same token (the token in PATH and "
                + "operator tokens file " + file + " line 1)");
    }

    @Test
    void theTokenEnvHelpSaysOperatorTokensAlsoEnableWrites() {
        assertThat(run("dashboard", "--help")).isZero();
        String help = out.toString().replaceAll("\\s+", " ");
        assertThat(help).doesNotContain("Unset: the dashboard is read-only")
                .contains("Unset, and no --operator-tokens: the dashboard is read-only");
    }

    /** On the old code a blank name became 'operator' and the dashboard started (and ran until the timeout). */
    @Test
    @Timeout(60)
    void aBlankOperatorNameIsRefused() {
        for (String blank : new String[] {"", "  "}) {
            assertThat(run("dashboard", "--bootstrap", "127.0.0.1:9", "--port", "0", "--token-env", "PATH",
                    "--operator-name", blank)).as("'%s'", blank).isEqualTo(2);
            assertThat(err.toString()).contains("--operator-name must not be blank");
        }
    }

    @Test
    void aReadTokenVariableThatIsNotSetIsRefusedBeforeAnythingStarts() {
        assertThat(System.getenv(UNSET)).isNull();
        assertThat(run("dashboard", "--bootstrap", "127.0.0.1:9", "--read-token-env", UNSET)).isEqualTo(2);
        assertThat(err.toString()).contains("--read-token-env " + UNSET).contains("not set");
    }

    /** A read token that is also an operator's would let every reader pin and roll back. PATH stands in for both. */
    @Test
    @Timeout(60) // the old code started the dashboard, which runs until stopped
    void aReadTokenThatIsAnOperatorTokenIsRefusedBeforeAnythingStarts(@TempDir Path dir) throws Exception {
        assertThat(run("dashboard", "--bootstrap", "127.0.0.1:9", "--port", "0", "--token-env", "PATH",
                "--read-token-env", "PATH")).isEqualTo(2);
        assertThat(err.toString()).contains("--read-token-env PATH: the read token (PATH) is also the token of "
                + "operator 'operator' (the token in PATH): every reader could pin, unpin and roll back");
        err.getBuffer().setLength(0);
        Path file = dir.resolve("operators");
        Files.writeString(file, "bob sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(System.getenv("PATH").getBytes(StandardCharsets.UTF_8))) + "\n");
        assertThat(run("dashboard", "--bootstrap", "127.0.0.1:9", "--port", "0", "--token-env", UNSET,
                "--operator-tokens", file.toString(), "--read-token-env", "PATH")).isEqualTo(2);
        assertThat(err.toString()).contains("--read-token-env PATH: ")
                .contains("token of operator 'bob' (operator tokens file " + file + " line 1)")
                .doesNotContain(System.getenv("PATH"));
    }

    @Test
    void aKeyStoreWithoutItsPasswordVariableIsRefused() {
        assertThat(run("dashboard", "--bootstrap", "127.0.0.1:9", "--tls-keystore", "ks.p12",
                "--tls-keystore-password-env", UNSET)).isEqualTo(2);
        assertThat(err.toString()).contains("--tls-keystore").contains(UNSET);
    }

    @Test
    void blankNamesAndAKeyStoreTypeWithoutAKeyStoreAreRefusedBeforeAnythingStarts() {
        for (String flag : new String[] {"--host", "--scope", "--token-env", "--tls-keystore-password-env"}) {
            err.getBuffer().setLength(0);
            assertThat(run("dashboard", "--bootstrap", "127.0.0.1:9", flag, " ")).as(flag).isEqualTo(2);
            assertThat(err.toString()).as(flag).contains(flag + " must not be empty");
        }
        err.getBuffer().setLength(0);
        assertThat(run("dashboard", "--bootstrap", "127.0.0.1:9", "--tls-keystore-type", "JKS")).isEqualTo(2);
        assertThat(err.toString()).contains("--tls-keystore-type applies to --tls-keystore, which is not given");
        err.getBuffer().setLength(0); // a password variable alone served plain HTTP without a word
        assertThat(run("dashboard", "--bootstrap", "127.0.0.1:9", "--tls-keystore-password-env", "MY_TLS_PW")).isEqualTo(2);
        assertThat(err.toString()).contains("--tls-keystore-password-env applies to --tls-keystore, which is not given");
    }

    @Test
    void aHostNameThatDoesNotResolveIsSaidSo() {
        assertThat(run("dashboard", "--bootstrap", "127.0.0.1:9", "--port", "0", "--host", "no.such.host.invalid"))
                .isEqualTo(1);
        assertThat(err.toString()).contains("cannot listen on no.such.host.invalid:0: the host name does not resolve")
                .doesNotContain("java.");
    }
}
