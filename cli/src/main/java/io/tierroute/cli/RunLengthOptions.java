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
            description = "Stop after the replay has run this long on the wall clock, start-up not counted, time "
                    + "while every worker is drained included (e.g. 90s, 10m; default: until Ctrl-C or the end of the "
                    + "requests).")
    Duration duration;

    /** The status line's refresh on a terminal, and how often a line is written when stderr goes to a log. */
    static final Duration TERMINAL_STATUS_INTERVAL = Duration.ofSeconds(1);
    static final Duration LOG_STATUS_INTERVAL = Duration.ofSeconds(10);

    @Option(names = "--status-interval", paramLabel = "D", converter = DemoCommand.DurationConverter.class,
            description = "How often the status line is refreshed on a terminal, or written as a new line when stderr "
                    + "goes to a file or pipe (default 1s on a terminal, 10s otherwise).")
    Duration statusInterval;

    /** --status-interval, else the default for where stderr goes. */
    Duration statusInterval(boolean stderrTerminal) {
        return statusInterval != null ? statusInterval : stderrTerminal ? TERMINAL_STATUS_INTERVAL : LOG_STATUS_INTERVAL;
    }

    /**
     * {@code d} as the status says it, as given (to the nanosecond): {@code 500 ms}, {@code 1.5 s},
     * {@code 90 s} ({@link Duration#toSeconds} said "0 s" of 500ms and "1 s" of 1.5s).
     */
    static String said(Duration d) {
        java.math.BigDecimal nanos = java.math.BigDecimal.valueOf(d.toNanos());
        return d.compareTo(Duration.ofSeconds(1)) < 0
                ? nanos.movePointLeft(6).stripTrailingZeros().toPlainString() + " ms"
                : nanos.movePointLeft(9).stripTrailingZeros().toPlainString() + " s";
    }

    /** Both in range; else a usage error quoting what was typed. */
    void validate(CommandLine.Model.CommandSpec spec) {
        CommandLine cl = spec.commandLine();
        if (duration != null && (duration.isNegative() || duration.isZero() || duration.compareTo(MAX_DURATION) > 0)) {
            throw new CommandLine.ParameterException(cl, "--duration must be > 0 and at most " + MAX_DURATION.toDays()
                    + " days, got " + typed(spec, "--duration", duration));
        }
        if (statusInterval != null && (statusInterval.isNegative() || statusInterval.isZero() || statusInterval.compareTo(MAX_STATUS_INTERVAL) > 0)) {
            throw new CommandLine.ParameterException(cl, "--status-interval must be > 0 and at most "
                    + MAX_STATUS_INTERVAL.toHours() + " h, got " + typed(spec, "--status-interval", statusInterval));
        }
    }

    private static String typed(CommandLine.Model.CommandSpec spec, String option, Duration parsed) {
        List<String> typed = spec.findOption(option).originalStringValues();
        return typed.isEmpty() ? parsed.toString() : typed.get(0);
    }
}
