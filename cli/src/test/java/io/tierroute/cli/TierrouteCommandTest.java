package io.tierroute.cli;

import io.tierroute.selector.config.AccessSettings;
import io.tierroute.selector.config.ConfigLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class TierrouteCommandTest {

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return TierrouteCommand.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
    }

    @Test
    void helpListsTheSelectorCommand() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString()).contains("tierroute").contains("selector").contains("--version");
    }

    /** An exception no command expected is named as a defect, with the command, before the trace a report needs. */
    @Test
    void anUnexpectedExceptionIsSaidToBeADefectOfOursBeforeItsTrace() throws Exception {
        picocli.CommandLine submit = TierrouteCommand.commandLine().getSubcommands().get("submit");
        submit.setErr(new PrintWriter(err, true));
        // through the handler the command line has (registered on the root, handed to its subcommands), not the method
        assertThat(submit.getExecutionExceptionHandler().handleExecutionException(
                new ArithmeticException("long overflow"), submit, null)).isEqualTo(1);
        assertThat(err.toString().lines().findFirst().orElse("")).isEqualTo("tierroute submit: unexpected error, a defect "
                + "of tierroute (please report it with the trace below): java.lang.ArithmeticException: long overflow");
        assertThat(err.toString()).contains("\tat ");
    }

    @Test
    void aUsageErrorIsTheErrorAndWhereTheHelpIsNotTheWholeUsage() {
        assertThat(run("submit", "--bootstrap", "127.0.0.1:9092")).isEqualTo(2);
        assertThat(err.toString().lines().toList()).containsExactly("Missing required option: '--flink=URL'",
                "Run 'tierroute submit --help' for its options.");
        err.getBuffer().setLength(0);
        assertThat(run("snapshots", "lst", "--bootstrap", "h:1")).as("a command of commands lists them").isEqualTo(2);
        assertThat(err.toString()).startsWith("unknown command 'lst' for 'tierroute snapshots'")
                .contains("Did you mean").contains("snapshots list").contains("Usage: tierroute snapshots");
        err.getBuffer().setLength(0);
        assertThat(run("dmeo")).as("a mistyped top-level command").isEqualTo(2);
        assertThat(err.toString()).startsWith("unknown command 'dmeo' for 'tierroute'")
                .contains("Did you mean").contains("tierroute demo").contains("Commands:");
        err.getBuffer().setLength(0);
        assertThat(run("serve", "--help")).as("a mistyped command next to --help is still an error").isEqualTo(2);
        assertThat(err.toString()).startsWith("unknown command 'serve' for 'tierroute'");
        err.getBuffer().setLength(0);
        assertThat(run("demo", "--help", "--bogus")).isEqualTo(2);
        assertThat(err.toString()).startsWith("Unknown option: '--bogus'");
        err.getBuffer().setLength(0);
        assertThat(run("fleet", "--bootstrap", "h:1", "--wrkers", "2")).isEqualTo(2);
        assertThat(err.toString().lines().toList()).containsExactly("Unknown options: '--wrkers', '2'",
                "Run 'tierroute fleet --help' for its options.");
    }

    @Test
    void selectorHelpExplainsEveryOption() {
        assertThat(run("selector", "--help")).isZero();
        assertThat(out.toString()).contains("--config").contains("--port").contains("--host").contains("Exit codes");
    }

    @Test
    void benchRoutingWritesPerRequestLogsWhenAsked() throws Exception {
        Path o = dir.resolve("bench");
        assertThat(run("bench", "routing", "--workload", "llmd-blog", "--limit", "120", "--workers", "2", "--load", "1",
                "--policies", "random", "--request-logs", "--out", o.toString())).isZero();
        assertThat(o.resolve("results.csv")).exists();
        assertThat(Files.readAllLines(o.resolve("requests-random-load1.csv"))).hasSize(121)
                .first().asString().startsWith("id,arrival_us,worker,");
        Path plain = dir.resolve("plain");
        assertThat(run("bench", "routing", "--workload", "llmd-blog", "--limit", "120", "--workers", "2", "--load", "1",
                "--policies", "random", "--out", plain.toString())).isZero();
        try (var files = Files.list(plain)) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("requests-"));
        }
    }

    @Test
    void versionIsPrinted() {
        assertThat(run("--version")).isZero();
        assertThat(out.toString()).startsWith("tierroute ").doesNotContain("${");
    }

    @Test
    void badConfigExitsWithTwoNamingTheField() throws Exception {
        Path f = dir.resolve("bad.yaml");
        Files.writeString(f, "workers:\n  - {name: a}\n  - {name: b, tiers: {cpu: -1}}\n");
        assertThat(run("selector", "--config", f.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("bad configuration").contains("workers[1].tiers.cpu").contains("got -1");
    }

    @Test
    void anEmptyHostIsAUsageErrorNotTheConfigsHost() throws Exception {
        Path f = Files.writeString(dir.resolve("ok.yaml"), "workers:\n  - {name: a}\n");
        assertThat(run("selector", "--config", f.toString(), "--port", "0", "--host", "")).isEqualTo(2);
        assertThat(err.toString()).contains("--host must not be empty");
    }

    /** On the old code the selector started and answered every closed route 403, saying nothing. */
    @Test
    @Timeout(60)
    void aClosedAccessGroupWhoseTokenIsUnsetRefusesToStart() throws Exception {
        String unset = "TIERROUTE_TEST_UNSET_VARIABLE_7f3a";
        String admin = "admin: {tokenEnv: " + unset + "_ADMIN}\n";
        Path f = Files.writeString(dir.resolve("closed.yaml"), "workers:\n  - {name: a}\n" + admin
                + "access: {read: token, readTokenEnv: " + unset + ", data: token, dataTokenEnv: " + unset + "_DATA}\n");
        assertThat(run("selector", "--config", f.toString(), "--port", "0")).isEqualTo(2);
        assertThat(err.toString().lines().toList()).containsExactly("tierroute selector: bad configuration: access.read "
                + "is token, but neither " + unset + " (access.readTokenEnv) nor the admin token's " + unset + "_ADMIN "
                + "(admin.tokenEnv) is set: every GET /v1/workers, /v1/params, /metrics would be refused; set one, or make "
                + "access.read open");
        err.getBuffer().setLength(0);
        // PATH is always set: it stands in for the read token; the data group's variable is still unset.
        Files.writeString(f, "workers:\n  - {name: a}\n" + admin
                + "access: {read: token, readTokenEnv: PATH, data: token, dataTokenEnv: " + unset + "_DATA}\n");
        assertThat(run("selector", "--config", f.toString(), "--port", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("access.data is token, but neither " + unset + "_DATA (access.dataTokenEnv)")
                .contains("every POST /v1/route").doesNotContain("access.read");
        // The admin token opens a closed group too (AccessControl): set alone, it is enough to start.
        AccessSettings closed = ConfigLoader.parse("workers: {count: 1}\naccess: {read: token, readTokenEnv: " + unset
                + ", data: token, dataTokenEnv: " + unset + "_DATA}\n", dir).access();
        assertThat(SelectorCommand.unsetAccessToken(closed, "PATH")).isNull();
        assertThat(SelectorCommand.unsetAccessToken(closed, unset + "_ADMIN")).startsWith("access.read is token");
    }

    @Test
    void missingConfigOptionIsAUsageError() {
        assertThat(run("selector")).isEqualTo(2);
        assertThat(err.toString()).contains("--config");
        assertThat(run("selector", "--config", dir.resolve("none.yaml").toString())).isEqualTo(2);
        assertThat(err.toString()).contains("file not found");
    }

    @Test
    void noCommandIsAUsageError() {
        assertThat(run()).isEqualTo(2);
        assertThat(err.toString()).contains("command is required");
    }
}
