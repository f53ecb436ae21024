package io.tierroute.cli;

import io.tierroute.dashboards.control.ControlText;
import io.tierroute.dashboards.history.ScopeState;
import io.tierroute.dashboards.history.SnapshotHistory;
import io.tierroute.dashboards.history.VersionRecord;
import io.tierroute.schemas.Topics;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.NavigableSet;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code tierroute snapshots list|show|diff|pin|unpin|rollback|trim}: the operator's view of the snapshot
 * history ({@code tierroute.params}) and pins ({@code tierroute.control}), through the dashboards'
 * {@link SnapshotHistory} and the one {@link io.tierroute.schemas.snapshot.ActivationRule}. This file holds the
 * command, the options every subcommand shares and their common run; the subcommands are in
 * {@link SnapshotsReadCommands}, {@link SnapshotsWriteCommands} and {@link SnapshotsTrimCommand}, the printing in {@link SnapshotsText}.
 */
@Command(name = "snapshots",
        mixinStandardHelpOptions = true,
        versionProvider = TierrouteCommand.Version.class,
        description = {"Inspect fitted parameter snapshots, pin / unpin / roll back a scope, and trim its history.",
                "Reads tierroute.params and tierroute.control from the beginning, decides the active version with "
                        + "the same ActivationRule as the fitting job, the selectors and the dashboard, and writes "
                        + "PIN / UNPIN records (with actor, reason and sequence) to tierroute.control.", ""},
        subcommands = {SnapshotsReadCommands.ListCmd.class, SnapshotsReadCommands.Show.class, SnapshotsReadCommands.Diff.class,
                SnapshotsWriteCommands.Pin.class, SnapshotsWriteCommands.Unpin.class, SnapshotsWriteCommands.Rollback.class,
                SnapshotsTrimCommand.class},
        commandListHeading = "%nCommands:%n",
        synopsisSubcommandLabel = "COMMAND",
        footerHeading = "%nCredentials:%n",
        footer = {"Pin, unpin and rollback write tierroute.control; trim writes tombstones to tierroute.params. A deployment that configures authentication "
                + "and ACLs lets only the operator's principal do that; pass its client settings with "
                + "--command-config FILE (a full one: examples/kafka-client-sasl-ssl.properties), e.g.",
                // Short lines: an 84-column JAAS line wrapped at 80 put 'required \' on a line of its own,
                // and the pasted file then had no valid sasl.jaas.config.
                "  security.protocol=SASL_PLAINTEXT",
                "  sasl.mechanism=PLAIN",
                "  sasl.jaas.config=\\",
                "    org.apache.kafka.common.security.plain.PlainLoginModule required \\",
                "    username=\"operator\" password=\"...\";",
                "ACL recipe (kafka-acls.sh, StandardAuthorizer, allow.everyone.if.no.acl.found=false):",
                "  operator: WRITE, DESCRIBE on topic tierroute.control; READ, DESCRIBE on tierroute.params and "
                        + "tierroute.control; WRITE, DESCRIBE on transactional ids with the prefix tierroute-control- "
                        + "(a write fences the scope's other writers)",
                "  trim: the operator's ACLs and WRITE on topic tierroute.params (its deletions are tombstones there)",
                "  readers (list, show, diff, the dashboard): READ, DESCRIBE on both topics only",
                "Without the operator's credentials a write is refused by the broker and nothing is written "
                        + "(see deploy/README.md)."})
final class SnapshotsCommand implements Runnable {

    static final int REFUSED = 1;
    /** A write committed whose outcome could not be read back ({@link SnapshotsKafka.Unconfirmed}). */
    static final int UNCONFIRMED = 3;
    static final String EXIT_HEADING = "%nExit codes:%n";
    static final String EXIT_0 = "0:done";
    static final String EXIT_1 = "1:refused (an unknown scope or version, a write the history rules out, the broker "
            + "unreachable or refusing the client)";
    /** The read-only commands' 1: they write nothing, so no write can be ruled out. */
    static final String EXIT_1_READ = "1:refused (an unknown scope or version, the broker unreachable or refusing the "
            + "client)";
    static final String EXIT_2 = "2:bad command line";
    /** The writing commands' 3. */
    static final String EXIT_3 = "3:written, but what became active could not be read back: the write stands, do not "
            + "repeat the command; check 'snapshots list' (also when the broker did not confirm the commit: it may have "
            + "landed)";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a snapshots command is required");
    }

    // ---- shared options ----

    /** Where and as whom to connect, and the scope. */
    static final class Connection {
        @Option(names = {"-b", "--bootstrap"}, required = true, paramLabel = "HOST:PORT",
                description = "Kafka bootstrap servers (HOST:PORT[,HOST:PORT...]).")
        String bootstrap;

        @Option(names = {"-s", "--scope"}, paramLabel = "S", defaultValue = "default",
                description = "The scope (default: ${DEFAULT-VALUE}).")
        String scope;

        @Option(names = {"--command-config"}, paramLabel = "FILE",
                description = "Kafka client properties for the consumer and producer (security.protocol, "
                        + "sasl.mechanism, sasl.jaas.config, ssl.* ...), as for Kafka's own tools.")
        Path commandConfig;

        /** An hour: Kafka's clients take their timeouts in int milliseconds, and no broker answers later. */
        static final int MAX_TIMEOUT_SECONDS = 3600;

        @Option(names = {"--timeout"}, paramLabel = "D", defaultValue = "15s", converter = SecondsOrDuration.class,
                description = "How long to wait for the broker: 1 s to 1 h, a duration (30s, 2m) or whole seconds "
                        + "(default: ${DEFAULT-VALUE}).")
        Duration timeout;

        /** The newest versions per scope a read keeps besides those the command names; tests set a small one. */
        int versionWindow = SnapshotHistory.DEFAULT_MAX_VERSIONS;

        SnapshotsKafka kafka(CommandLine cl) {
            BootstrapAddress.require(bootstrap, "--bootstrap", cl);
            ScopeName.require(scope, "--scope", cl); // 'a#b' names no scope on the topic: refused before any wait
            if (timeout.compareTo(Duration.ofSeconds(1)) < 0 || timeout.compareTo(Duration.ofSeconds(MAX_TIMEOUT_SECONDS)) > 0) {
                throw new CommandLine.ParameterException(cl, "--timeout must be in [1 s, " + MAX_TIMEOUT_SECONDS
                        + " s], got " + (timeout.getNano() == 0 ? timeout.toSeconds() + " s" // toMillis() overflows
                                : timeout.toMillis() + " ms")); // a duration with a fraction: at most 106751 days
            }
            Properties props = KafkaClientConfig.load(commandConfig, KafkaClientConfig.SNAPSHOTS, cl);
            // The CLI reports broker problems itself; the clients' own logs only repeat them.
            if (System.getProperty("org.slf4j.simpleLogger.log.org.apache.kafka") == null) {
                System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "off");
            }
            return new SnapshotsKafka(bootstrap, props, timeout, versionWindow);
        }
    }

    /** Who writes and why. */
    static final class Who {
        @Option(names = {"--actor"}, paramLabel = "NAME", defaultValue = "${sys:user.name}",
                description = "Who acts, recorded with the control record (default: the OS user, ${DEFAULT-VALUE}); "
                        + "on a SASL connection the authenticated principal is recorded next to it, e.g. "
                        + "'oncall (User:operator)'.")
        String actor;

        @Option(names = {"--reason"}, required = true, paramLabel = "TEXT",
                description = "Why (required; recorded and shown on the dashboards).")
        String reason;

        void check(CommandLine cl) {
            if (actor == null || actor.isBlank()) {
                throw new CommandLine.ParameterException(cl, "--actor must name who acts");
            }
            if (reason.isBlank()) {
                throw new CommandLine.ParameterException(cl, "--reason must say why");
            }
            // Each said with its own flag: "--actor and --reason ..." left the user to find which one was wrong.
            for (String[] flag : new String[][] {{"--actor", actor}, {"--reason", reason}}) {
                if (flag[1].length() > 500) {
                    throw new CommandLine.ParameterException(cl, flag[0] + " is limited to 500 characters, got "
                            + flag[1].length());
                }
                if (ControlText.hasControlCharacter(flag[1])) {
                    throw new CommandLine.ParameterException(cl, flag[0] + " must be one line of printable text (no "
                            + "newline, tab or escape): it is printed to other operators' terminals");
                }
            }
        }
    }

    /** The common run: connect, read, act; refusals print one line on stderr and exit 1. */
    abstract static class Base implements Callable<Integer> {
        @Mixin
        Connection conn;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        PrintWriter out;

        @Override
        public final Integer call() {
            CommandLine cl = spec.commandLine();
            out = cl.getOut();
            PrintWriter err = cl.getErr();
            checkArguments(cl);
            SnapshotsKafka kafka = conn.kafka(cl);
            try {
                run(kafka);
                out.flush();
                return 0;
            } catch (SnapshotsKafka.Failure e) {
                out.flush();
                err.println("tierroute snapshots " + spec.name() + ": " + e.getMessage());
                err.flush();
                return e instanceof SnapshotsKafka.Unconfirmed ? UNCONFIRMED : REFUSED;
            }
        }

        abstract void run(SnapshotsKafka kafka);

        /** The subcommand's own arguments, checked before the broker is asked anything. */
        void checkArguments(CommandLine cl) {}

        /** The versions of the scope the subcommand names: a read keeps them however old they are. */
        Set<Long> named() {
            return Set.of();
        }

        SnapshotsKafka.Read read(SnapshotsKafka kafka) {
            return kafka.read(conn.scope, named());
        }

        static void requireVersion(CommandLine cl, String name, long v) {
            if (v < 1) {
                throw new CommandLine.ParameterException(cl, name + " must be a version ≥ 1, got " + v);
            }
        }

        ScopeState scope(SnapshotHistory h) {
            return h.scope(conn.scope).orElseThrow(() -> new SnapshotsKafka.Failure("unknown scope '" + conn.scope
                    + "'; known scopes: " + (h.scopes().isEmpty() ? "none (no snapshot published yet)"
                    : ControlText.printable(h.scopes().toString())))); // names from the topic: escaped
        }

        /** Version {@code v} of the scope, which the read kept if it is on the topic (a {@link #named} one). */
        static VersionRecord version(SnapshotsKafka.Read read, ScopeState s, long v) {
            return read.history().version(s.scope(), v).orElseThrow(() -> new SnapshotsKafka.Failure(
                    notOnTopic(s.scope(), read.onTopic().of(s.scope()), v)));
        }

        /**
         * Why {@code v} is not shown: not on the topic, trimmed or never published. Said with how many versions the topic
         * holds and its oldest and newest, not as "it holds versions 2..1098", which reads as if 4 were among them.
         */
        static String notOnTopic(String scope, NavigableSet<Long> onTopic, long v) {
            String holds = onTopic.isEmpty() ? "it holds no version of the scope"
                    : "it holds " + Plural.of(onTopic.size(), "version") + " of the scope, the oldest " + onTopic.first()
                    + ", the newest " + onTopic.last();
            return "version " + v + " of scope '" + scope + "' is not on " + Topics.PARAMS
                    + " (trimmed, or never published); " + holds;
        }
    }

}
