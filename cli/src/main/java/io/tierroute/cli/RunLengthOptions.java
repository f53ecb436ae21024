package io.tierroute.cli;

import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.List;

/** How long a command that runs until stopped ({@code demo}, {@code fleet}) runs, and how often it reports. */
final class RunLengthOptions {

    /** Far beyond any run; a deadline in nanoseconds would overflow only past 292 years. */
    static final Duration MAX_DURATION = Duration.ofDays(3650);
    static final Duration MAX_STATUS_INTERVAL = Duration.ofHours(24);

    @Option(names = "--duration", paramLabel = "D", converter = DemoCommand.DurationConverter.class,
            description = "Stop after this long (e.g. 90s, 10m; default: until Ctrl-C or the end of the requests).")
    Duration duration;

    @Option(names = "--status-interval", defaultValue = "1s", paramLabel = "D", converter = DemoCommand.DurationConverter.class,
            description = "How often the status line is refreshed (default ${DEFAULT-VALUE}).")
    Duration statusInterval;

    /** Both in range; else a usage error quoting what was typed. */
    void validate(CommandLine.Model.CommandSpec spec) {
        CommandLine cl = spec.commandLine();
        if (duration != null && (duration.isNegative() || duration.isZero() || duration.compareTo(MAX_DURATION) > 0)) {
            throw new CommandLine.ParameterException(cl, "--duration must be > 0 and at most " + MAX_DURATION.toDays()
                    + " days, got " + typed(spec, "--duration", duration));
        }
        if (statusInterval.isNegative() || statusInterval.isZero() || statusInterval.compareTo(MAX_STATUS_INTERVAL) > 0) {
            throw new CommandLine.ParameterException(cl, "--status-interval must be > 0 and at most "
                    + MAX_STATUS_INTERVAL.toHours() + " h, got " + typed(spec, "--status-interval", statusInterval));
        }
    }

    private static String typed(CommandLine.Model.CommandSpec spec, String option, Duration parsed) {
        List<String> typed = spec.findOption(option).originalStringValues();
        return typed.isEmpty() ? parsed.toString() : typed.get(0);
    }
}
