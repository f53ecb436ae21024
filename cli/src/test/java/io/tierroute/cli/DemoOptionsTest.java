package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Every demo option is checked before anything starts: a bad one is a usage error (2) naming it, and nothing runs. */
class DemoOptionsTest {

    @Test
    void theOptionsNeverPrintTheOperatorToken() {
        Demo.Options o = new Demo.Options(null, "chat", 8, 10, 1, 0, 1, "default", 0, 0, 100, 0.3, 50,
                "s3cret-operator-token", "TIERROUTE_ADMIN_TOKEN");
        assertThat(o.toString()).doesNotContain("s3cret").contains("token=set", "tokenEnv=TIERROUTE_ADMIN_TOKEN",
                "selectorPort=0", "workload=chat");
        assertThat(new Demo.Options(null, "chat", 8, 10, 1, 0, 1, "default", 0, 0, 100, 0.3, 50, null, "X").toString())
                .contains("token=unset");
    }

    @Test
    void theSelectorApiLineSaysWhetherAdminCallsCanWork() {
        assertThat(DemoCommand.adminNote("t", "MY_TOKEN")).isEqualTo("admin calls need $MY_TOKEN");
        for (String unset : new String[] {null, ""}) {
            assertThat(DemoCommand.adminNote(unset, "MY_TOKEN")).isEqualTo(
                    "$MY_TOKEN is unset: admin calls (drain, undrain, health) are refused");
        }
    }

    @Test
    void theSuggestedSnapshotsListNamesTheDemosScope() {
        assertThat(DemoCommand.snapshotsList("127.0.0.1:9092", "default"))
                .isEqualTo("bin/tierroute snapshots list --bootstrap 127.0.0.1:9092");
        assertThat(DemoCommand.snapshotsList("127.0.0.1:9092", "foo"))
                .isEqualTo("bin/tierroute snapshots list --bootstrap 127.0.0.1:9092 --scope foo");
        assertThat(DemoCommand.snapshotsList("127.0.0.1:9092", "eu west"))
                .isEqualTo("bin/tierroute snapshots list --bootstrap 127.0.0.1:9092 --scope 'eu west'");
    }

    @Test
    void durationsReadTheShortFormsAndIso8601() {
        DemoCommand.DurationConverter c = new DemoCommand.DurationConverter();
        assertThat(c.convert("500ms")).isEqualTo(java.time.Duration.ofMillis(500));
        assertThat(c.convert("1.5s")).isEqualTo(java.time.Duration.ofMillis(1500));
        assertThat(c.convert("5m")).isEqualTo(java.time.Duration.ofMinutes(5));
        assertThat(c.convert("PT30S")).as("ISO 8601, which a QA run found refused").isEqualTo(java.time.Duration.ofSeconds(30));
        assertThat(c.convert("pt1h2m")).isEqualTo(java.time.Duration.ofMinutes(62));
        assertThat(c.convert("2d")).isEqualTo(java.time.Duration.ofDays(2));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> c.convert("soon"))
                .hasMessageContaining("is not a duration").hasMessageContaining("PT30S");
        // the fitting job's parser, but for a bare number (milliseconds to the job): seconds or minutes?
        for (String noUnit : new String[] {"90", "", "nans", "infinitys", "5ds", "1e300s"}) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> c.convert(noUnit)).as(noUnit)
                    .hasMessageContaining("is not a duration");
        }
        assertThat(c.convert("1.5 s")).isEqualTo(io.tierroute.jobs.JobSettings.parseDuration("1.5s"));
    }

    /**
     * Past 3650 days a duration is refused where it is read, for every option: a deadline in nanoseconds overflows
     * past 292 years, and submit --wait 3000000h once crashed so after it had submitted the job.
     */
    @Test
    void aDurationPast3650DaysIsRefusedWhereItIsRead() {
        DemoCommand.DurationConverter c = new DemoCommand.DurationConverter();
        assertThat(c.convert("3650d")).isEqualTo(java.time.Duration.ofDays(3650));
        for (String d : new String[] {"3651d", "3000000h", "P400000D", "99999999999999h"}) {
            assertThatThrownBy(() -> c.convert(d)).as(d).isInstanceOf(CommandLine.TypeConversionException.class)
                    .hasMessage("'" + d + "' is longer than 3650 days");
        }
        String[] r = runAsIs(List.of("submit", "--flink", "http://127.0.0.1:1", "--bootstrap", "127.0.0.1:1", "--wait",
                "3000000h"));
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[2]).contains("'3000000h' is longer than 3650 days").doesNotContain("Exception");
    }

    @Test
    void aNonPositiveDurationIsRefusedUpFront() {
        for (String d : new String[] {"-5s", "0s"}) {
            String[] r = run("demo", "--workload", "chat", "--duration", d);
            assertThat(r[0]).as(d).isEqualTo("2");
            assertThat(r[2].lines().findFirst().orElse("")).isEqualTo("--duration must be > 0 and at most 3650 days, got " + d);
            assertThat(r[1]).as("nothing started").doesNotContain("starting");
        }
    }

    @Test
    void theJobsGateSettingsAreCheckedBeforeTheStackStarts() {
        for (String r2 : new String[] {"1.5", "-0.1"}) {
            String[] r = run("demo", "--workload", "chat", "--gate-min-r2", r2);
            assertThat(r[0]).as(r2).isEqualTo("2");
            assertThat(r[2].lines().findFirst().orElse("")).isEqualTo("--gate-min-r2 must be in [0, 1], got " + r2);
            assertThat(r[1]).doesNotContain("starting");
        }
    }

    @Test
    void theOtherLateChecksToo() {
        // --duration: a regression would start the stack, not run it for ever
        assertThat(run("demo", "--workload", "chat", "--duration", "3s", "--status-interval", "0s")[2])
                .startsWith("--status-interval must be > 0");
        assertThat(run("demo", "--workload", "chat", "--duration", "3s", "--limit", "-1")[2]).startsWith("--limit must be >= 0");
        // as bench routing's: a negative seed was taken, an empty trace was "a directory"
        assertThat(run("demo", "--workload", "chat", "--duration", "3s", "--seed", "-5")[2])
                .startsWith("--seed must be a whole number >= 0, got -5");
        assertThat(run("demo", "--trace", "", "--duration", "3s")[2]).startsWith("--trace must name a file (got an empty path)");
        assertThat(run("demo", "--workload", "chat", "--duration", "3s", "--scope", " ")[2]).startsWith("--scope must not be empty");
        // Workloads.atLoad refuses these only once the demo has started its parts
        assertThat(run("demo", "--workload", "chat", "--duration", "3s", "--load", "Infinity")[2])
                .startsWith("--load must be in [0.01, 100.0], got Infinity");
        for (String scale : new String[] {"Infinity", "1e-300", "0", "1001"}) {
            assertThat(run("demo", "--workload", "chat", "--duration", "3s", "--time-scale", scale)[2]).as(scale)
                    .startsWith("--time-scale must be in [0.01, 1000], got " + Double.parseDouble(scale));
        }
        assertThat(run("demo", "--workload", "chat", "--duration", "3s", "--workers", "50000000")[2])
                .startsWith("--workers must be in [1, 4096], got 50000000");
    }

    /**
     * --scope takes what the selector's configuration takes as kafka.scope: before, 'a#b' ran (demo and fleet alike)
     * though no selector could be configured to serve it ('#' separates scope and version in the params keys).
     */
    @Test
    void aScopeTheSelectorsConfigurationRefusesIsRefusedByDemoAndFleet() {
        for (String command : new String[] {"demo", "fleet"}) {
            List<String> base = new ArrayList<>(List.of(command, "--workload", "chat", "--duration", "3s"));
            if (command.equals("fleet")) {
                base.addAll(List.of("--bootstrap", "127.0.0.1:9"));
            }
            List<String> hash = new ArrayList<>(base);
            hash.addAll(List.of("--scope", "a#b"));
            String[] r = command.equals("demo") ? run(hash.toArray(String[]::new)) : runAsIs(hash);
            assertThat(r[0]).as(command + ": " + r[2]).isEqualTo("2");
            assertThat(r[2].lines().findFirst().orElse("")).isEqualTo("--scope: must not contain '#' (it separates scope "
                    + "and version in params keys), got 'a#b'");
            assertThat(r[1]).as("nothing started").doesNotContain("starting");
            List<String> longName = new ArrayList<>(base);
            longName.addAll(List.of("--scope", "s".repeat(257)));
            assertThat((command.equals("demo") ? run(longName.toArray(String[]::new)) : runAsIs(longName))[2]).as(command)
                    .startsWith("--scope: a scope has at most 256 characters, got 257");
        }
        assertThat(ScopeName.problem("tenant-a/eu west.1")).as("what the selector takes").isNull();
        assertThat(ScopeName.problem("quote\"and'\\back\nslash")).as("any text goes in escaped").isNull();
    }

    /**
     * Without --trace or --workload, run outside the checkout: the refusal names every absolute path the default trace
     * was looked for at and the flags that give one (before: "../shared/traces/… is not there", relative to nothing said).
     */
    @Test
    void aMissingDefaultTraceNamesWhereItWasLookedForAndHowToGiveOne() {
        List<java.nio.file.Path> tried = LiveFleetOptions.defaultTraceCandidates();
        java.nio.file.Path cli = java.nio.file.Path.of(System.getProperty("user.dir")); // surefire runs in cli/
        assertThat(tried).allMatch(java.nio.file.Path::isAbsolute).doesNotHaveDuplicates()
                .as("from the working directory").contains(cli.resolve(LiveFleetOptions.DEFAULT_TRACE).normalize())
                .as("from the repository, above the classes (cli/target/)")
                .contains(cli.getParent().resolve(LiveFleetOptions.DEFAULT_TRACE).normalize());
        assertThat(LiveFleetOptions.noDefaultTrace(List.of(java.nio.file.Path.of("/a/t.jsonl"), java.nio.file.Path.of("/b/t.jsonl"))))
                .isEqualTo("no --trace or --workload given, and the default trace is not there (looked for /a/t.jsonl, "
                        + "/b/t.jsonl); give --trace FILE (Mooncake .jsonl or Azure .csv) or a generated workload, e.g. "
                        + "--workload agentic");
        if (LiveFleetOptions.findDefaultTrace() == null) { // a checkout without ../shared: the command says it too
            String[] r = run("demo", "--duration", "3s");
            assertThat(r[0]).isEqualTo("2");
            assertThat(r[2].lines().findFirst().orElse("")).isEqualTo(LiveFleetOptions.noDefaultTrace(tried));
            assertThat(r[1]).as("nothing started").doesNotContain("starting");
        }
    }

    @Test
    void aMalformedTraceOrADurationBeyondAnyRunIsRefusedBeforeTheStackStarts(@org.junit.jupiter.api.io.TempDir
            java.nio.file.Path dir) throws Exception {
        java.nio.file.Path garbage = java.nio.file.Files.writeString(dir.resolve("t.jsonl"), "{\"timestamp\": 1, \"input\n");
        String[] r = run("demo", "--trace", garbage.toString(), "--duration", "3s");
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[2].lines().findFirst().orElse("")).startsWith("--trace " + garbage + ":1: ");
        assertThat(r[1]).as("nothing started").doesNotContain("starting");
        assertThat(run("demo", "--workload", "chat", "--duration", "100000000h")[2])
                .startsWith("Invalid value for option '--duration': '100000000h' is longer than 3650 days");
        assertThat(run("demo", "--workload", "chat", "--duration", "3s", "--status-interval", "48h")[2])
                .startsWith("--status-interval must be > 0 and at most 24 h, got 48h");
    }

    @Test
    void aBadSelectorPortIsRefusedUpFront() {
        for (String p : new String[] {"-1", "65536"}) {
            String[] r = run("demo", "--workload", "chat", "--duration", "3s", "--selector-port", p);
            assertThat(r[0]).as(p).isEqualTo("2");
            assertThat(r[2].lines().findFirst().orElse("")).isEqualTo("--selector-port must be in [0, 65535], got " + p);
            assertThat(r[1]).as("nothing started").doesNotContain("starting");
        }
        // a port another part of the demo is given would fail only after Kafka and Flink have started
        String[] same = run("demo", "--workload", "chat", "--duration", "3s", "--dashboard-port", "18090",
                "--selector-port", "18090");
        assertThat(same[0]).isEqualTo("2");
        assertThat(same[2].lines().findFirst().orElse(""))
                .isEqualTo("--dashboard-port and --selector-port are both 18090; give each its own port (0 = any free port)");
        assertThat(same[1]).doesNotContain("starting");
        assertThat(run("demo", "--workload", "chat", "--duration", "3s", "--kafka-port", "19092", "--selector-port",
                "19092")[2]).startsWith("--kafka-port and --selector-port are both 19092;");
    }

    /** rc, stdout, stderr; any free ports (unless given), should a regression start the stack. */
    /** Checked through the option check alone: on the old code the demo itself would start. */
    @Test
    void aBlankTokenEnvIsAUsageError() {
        for (String blank : new String[] {"", " "}) {
            CommandLine cl = TierrouteCommand.commandLine();
            cl.parseArgs("demo", "--workload", "chat", "--duration", "3s", "--token-env", blank);
            DemoCommand demo = cl.getSubcommands().get("demo").getCommand();
            assertThatThrownBy(demo::options).as("'" + blank + "'").isInstanceOf(CommandLine.ParameterException.class)
                    .hasMessage("--token-env must not be empty");
        }
    }

    /** Checked through the option check alone (the demo is not started): the old code said nothing. */
    @Test
    void fewerRequestsThanMinSamplesAreWarnedOf() {
        CommandLine cl = TierrouteCommand.commandLine();
        cl.parseArgs("demo", "--workload", "chat", "--duration", "3s", "--limit", "50");
        DemoCommand demo = cl.getSubcommands().get("demo").getCommand();
        demo.options();
        assertThat(demo.warning).isEqualTo("the demo replays 50 requests (--limit 50), fewer than --min-samples 100: "
                + "the fitting job will never fit a parameter; raise --limit or lower --min-samples");
        CommandLine enough = TierrouteCommand.commandLine();
        enough.parseArgs("demo", "--workload", "chat", "--duration", "3s", "--limit", "50", "--min-samples", "50");
        DemoCommand fits = enough.getSubcommands().get("demo").getCommand();
        fits.options();
        assertThat(fits.warning).isNull();
    }

    /** The command line as given (fleet has none of the demo's port flags). */
    private static String[] runAsIs(List<String> args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = TierrouteCommand.execute(args.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true));
        return new String[] {Integer.toString(rc), out.toString(), err.toString()};
    }

    private static String[] run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        List<String> all = new ArrayList<>(List.of(args));
        for (String flag : new String[] {"--flink-ui-port", "--dashboard-port", "--selector-port"}) {
            if (!all.contains(flag)) {
                all.addAll(List.of(flag, "0"));
            }
        }
        int rc = TierrouteCommand.execute(all.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true));
        return new String[] {Integer.toString(rc), out.toString(), err.toString()};
    }
}
