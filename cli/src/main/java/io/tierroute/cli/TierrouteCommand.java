package io.tierroute.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.InputStream;
import java.io.PrintWriter;
import java.util.List;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * The {@code tierroute} command. Subcommands are listed in {@link Subcommands}; this class only
 * carries the shared options ({@code --help}, {@code --version}) and the entry point.
 */
@Command(name = "tierroute",
        mixinStandardHelpOptions = true,
        versionProvider = TierrouteCommand.Version.class,
        description = {"Tier-aware, online-fitted routing of LLM requests across serving engines.", ""},
        commandListHeading = "%nCommands:%n",
        footer = {"", "Run 'tierroute <command> --help' for the options of a command."},
        synopsisSubcommandLabel = "COMMAND")
public final class TierrouteCommand implements Runnable {

    /**
     * The exit-code line of a command that runs until a signal: the JVM exits 128 + signal once the shutdown hooks have
     * stopped everything, so 130 and 143 are the clean stop, not a failure.
     */
    static final String STOPPED_BY_SIGNAL = "130, 143:stopped cleanly by Ctrl-C (SIGINT) or SIGTERM: the JVM's "
            + "128 + signal, once the shutdown has stopped everything";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Without a subcommand: print the usage and fail. */
    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
    }

    /** The command line with every registered subcommand. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new TierrouteCommand());
        Subcommands.register(cl);
        // After the subcommands: picocli hands the handler to the commands registered at the time of the call.
        cl.setParameterExceptionHandler(TierrouteCommand::usageError);
        cl.setExecutionStrategy(TierrouteCommand::refuseUnmatchedThenRun);
        cl.setExecutionExceptionHandler(TierrouteCommand::unexpected);
        return cl;
    }

    /**
     * An exception no command expected is a defect of ours: said as one, on a line of its own naming the command,
     * before the stack trace its report needs (picocli printed the bare trace, which read as a crash of the input).
     * Exit code 1.
     */
    private static int unexpected(Exception e, CommandLine c, CommandLine.ParseResult parsed) {
        PrintWriter err = c.getErr();
        err.println(c.getCommandSpec().qualifiedName() + ": unexpected error, a defect of tierroute (please report it with "
                + "the trace below): " + e);
        e.printStackTrace(err);
        err.flush();
        return 1;
    }

    /**
     * A command line picocli cannot accept: the error and where the options are, not the whole usage (50 lines for
     * {@code submit}) under which the one line that matters scrolled away. Exit code 2.
     */
    private static int usageError(CommandLine.ParameterException e, String[] args) {
        CommandLine c = e.getCommandLine();
        PrintWriter err = c.getErr();
        if (!c.getSubcommands().isEmpty()) {
            // A command of commands: a mistyped command is named, its likely meaning suggested, then the short list.
            if (e instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()
                    && !u.getUnmatched().get(0).startsWith("-")) {
                String typed = u.getUnmatched().get(0);
                String parent = c.getCommandSpec().qualifiedName();
                err.println("unknown command '" + typed + "' for '" + parent + "'");
                List<String> near = CommandSuggestions.near(typed, c.getSubcommands().keySet());
                if (!near.isEmpty()) {
                    err.println("Did you mean: " + near.stream().map(n -> parent + " " + n)
                            .collect(Collectors.joining(" or ")) + "?");
                }
            } else {
                err.println(e.getMessage());
            }
            c.usage(err);
        } else {
            err.println(e.getMessage());
            String jobFlag = c.getCommand() instanceof SubmitCommand ? SubmitAdvice.jobFlagHint(e) : null;
            if (jobFlag != null) {
                err.println(jobFlag);
            } else if (!CommandLine.UnmatchedArgumentException.printSuggestions(e, err)) {
                err.println("Run '" + c.getCommandSpec().qualifiedName() + " --help' for its options.");
            }
        }
        return c.getCommandSpec().exitCodeOnInvalidInput();
    }

    /**
     * picocli skips its checks when {@code --help} is given, so {@code tierroute serve --help} printed the root help
     * and exited 0: a script's check of a mistyped command passed. Leftover arguments are an error with or without it.
     */
    private static int refuseUnmatchedThenRun(CommandLine.ParseResult parsed) {
        for (CommandLine.ParseResult p = parsed; p != null; p = p.subcommand()) {
            if (!p.unmatched().isEmpty()) {
                throw new CommandLine.UnmatchedArgumentException(p.commandSpec().commandLine(), p.unmatched());
            }
        }
        return new CommandLine.RunLast().execute(parsed);
    }

    /** Runs {@code args} with the given streams; returns the exit code (2 for usage and configuration errors). */
    public static int execute(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cl = commandLine();
        cl.setOut(out);
        cl.setErr(err);
        return cl.execute(args);
    }

    public static void main(String[] args) {
        // Undertow and XNIO log through jboss-logging: send it to SLF4J like the rest.
        if (System.getProperty("org.jboss.logging.provider") == null) {
            System.setProperty("org.jboss.logging.provider", "slf4j");
        }
        // The demo runs Kafka and Flink in this JVM and the fleet prints a status line: INFO logs would bury it; cluster and
        // submit talk to Kafka's Admin client, whose INFO logs would bury their report, and the dashboard's consumer
        // and producer would bury its address (and log every reconnection while the broker is away).
        if (args.length > 0 && List.of("demo", "fleet", "cluster", "submit", "dashboard").contains(args[0])
                && System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
            // The Kafka client's WARN at each reconnect to an absent broker is off for every command
            // (simplelogger.properties): the command, or the selector's loader, says once that Kafka does not answer.
        }
        if (args.length > 0 && args[0].equals("demo")) {
            // Flink's two-phase sinks register one metric twice and warn at every checkpoint.
            quiet("org.apache.flink.metrics.MetricGroup", "error");
            // While the embedded broker's group coordinator starts, the jobs' first offset commits fail with a
            // retriable error and a stack trace. Harmless: the jobs' offsets live in their checkpoints, the commit is
            // only a report to Kafka that the next checkpoint makes again, and a failure is counted
            // (KafkaSourceReader's commitsFailed metric).
            quiet("org.apache.flink.connector.kafka.source.reader.KafkaSourceReader", "error");
            // The same failed commit, reported once more by the Kafka consumer inside the source, mid status line.
            quiet("org.apache.kafka.clients.consumer.internals.ConsumerCoordinator", "error");
            // When the demo ends, a checkpoint under way fails because its coordinator suspends: a stack trace after
            // the summary. The demo's jobs keep no state past the run; their failed checkpoints are also counted in
            // Flink's numberOfFailedCheckpoints metric.
            quiet("org.apache.flink.runtime.checkpoint.CheckpointFailureManager", "error");
            // A failure of the fitting job (a Kafka outage of a minute or more) is told by the status line and the
            // summary, with its cause and each restart (FittingJobWatch); Flink's web UI keeps the full trace under the
            // job's Exceptions. Without these levels each failover also prints ~30-line stack traces, one per source
            // and task (740 lines for a 5-minute outage), and the producers' retry WARNs as the broker comes back,
            // burying the status line.
            for (String failover : List.of("org.apache.flink.runtime.source.coordinator.SourceCoordinatorContext",
                    "org.apache.flink.runtime.taskmanager.Task",
                    "org.apache.flink.connector.base.source.reader.fetcher.SplitFetcherManager",
                    "org.apache.flink.connector.kafka.sink.internal.KafkaCommitter",
                    "org.apache.kafka.clients.producer.internals.Sender")) {
                quiet(failover, "off");
            }
            // Start-up notices that are true of every embedded run (a fresh broker's empty metadata log, no Kerberos
            // tokens, no JobManager log file for a web UI the demo does not serve) and say nothing to act on.
            for (String quiet : List.of("org.apache.kafka.controller.QuorumController",
                    "org.apache.flink.runtime.security.token.DefaultDelegationTokenManager",
                    "org.apache.flink.runtime.webmonitor.WebMonitorUtils")) {
                quiet(quiet, "error");
            }
        }
        // Serving subcommands block inside call() until a shutdown hook releases them.
        int code = commandLine().execute(args);
        // After Ctrl-C or SIGTERM the signal's shutdown ends the JVM with 128 + signal, the documented code. A nonzero
        // System.exit here could halt first with the command's own code instead (the JDK halts at once on a nonzero
        // status once the hooks have run), so the command just returns and leaves the exit to the shutdown.
        if (!StopOnCtrlC.signalled()) {
            System.exit(code);
        }
    }

    /** Sets {@code logger}'s level for the demo unless the user set it (-Dorg.slf4j.simpleLogger.log.NAME=LEVEL wins). */
    private static void quiet(String logger, String level) {
        String key = "org.slf4j.simpleLogger.log." + logger;
        if (System.getProperty(key) == null) {
            System.setProperty(key, level);
        }
    }

    /** {@code --version}: the Maven project version baked into the jar. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            Properties p = new Properties();
            try (InputStream in = TierrouteCommand.class.getResourceAsStream("/tierroute-version.properties")) {
                if (in != null) {
                    p.load(in);
                }
            } catch (java.io.IOException ignored) {
                // falls back to "unknown"
            }
            return new String[] {"tierroute " + p.getProperty("version", "unknown"),
                    "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")"};
        }
    }
}
