package io.tierroute.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;

/**
 * The foreground of {@code demo} and {@code fleet} once everything runs: the fleet's status line on stderr, every
 * interval, until Ctrl-C, the duration, the end of the requests or a failure; then the fleet stops, its last decisions
 * settle and the summary is printed. On a terminal the line is redrawn in place; in a log (a file, a pipe, a service
 * manager) each status is a line of its own, so the log does not become one endless line of carriage returns.
 */
final class LiveStatus {

    private LiveStatus() {
    }

    /** A part beside the fleet that the loop watches: the demo's fitting job; {@link #NONE} for the fleet alone. */
    interface Watched {
        /** Why the run must stop (the part failed for good), or null while it runs or recovers. Asked every tick. */
        String failure();

        /** Appended to the status line, e.g. {@code  · fitting job restarting (...)}; empty when there is no news. */
        String statusNote();

        /** Lines for the summary, e.g. how often the part restarted and why; empty when there is nothing to say. */
        List<String> summary();

        /**
         * Asked once the run stops for another reason (--duration, the end of the requests): why the part is not well
         * then (still restarting), which makes the run's exit status 1; null when it is.
         */
        String unwellAtStop();

        Watched NONE = new Watched() {
            @Override
            public String failure() {
                return null;
            }

            @Override
            public String unwellAtStop() {
                return null;
            }

            @Override
            public String statusNote() {
                return "";
            }

            @Override
            public List<String> summary() {
                return List.of();
            }
        };
    }

    /**
     * Runs the loop and the summary; 0 when it stopped cleanly, 1 on a failure or when Kafka did not acknowledge every
     * fleet record and decision once the stop settled (the stop line says how many, lost or still unacknowledged). {@code other} is what runs beside the
     * fleet (the demo's fitting job): its failure stops the run, its note ends the status line, its lines end the
     * summary. {@code terminal}: whether {@code err} is a terminal.
     */
    static int run(String command, FleetRun run, StopOnCtrlC stop, boolean terminal, Duration interval, Duration duration,
                   Watched other, PrintWriter out, PrintWriter err) throws InterruptedException {
        int rc = 0;
        // The start-up ends here, once the URLs are printed: --duration counts from now (the replay began earlier, in
        // the demo's start-up, so that its fitting job has samples; that part is not counted).
        long deadline = deadlineNanos(duration, run.endStartUp());
        String reason = "Ctrl-C or SIGTERM"; // a shutdown hook cannot tell them apart
        StatusOutput status = new StatusOutput(err, terminal);
        // Stops are looked for every second at most, whatever the interval (10 s by default in a log), so a
        // --duration or the end of the requests is not overshot by up to an interval.
        long tickMillis = Math.max(50, Math.min(interval.toMillis(), 1000));
        long nextLine = System.nanoTime() + interval.toNanos();
        boolean shownThisTick = false;
        // ... and the tick before the deadline is cut short to end there: a --duration of 500 ms runs 500 ms, not a tick
        while (!stop.await(untilNextCheck(tickMillis, deadline, System.nanoTime()))) {
            shownThisTick = System.nanoTime() - nextLine >= 0;
            if (shownThisTick) {
                nextLine += interval.toNanos();
                status.show(run.statusLine() + other.statusNote());
            }
            if (System.nanoTime() >= deadline) {
                reason = "--duration reached";
                break;
            }
            if (run.fleet().failure() != null) {
                reason = "the simulation failed: " + run.fleet().failure();
                rc = 1;
                break;
            }
            if (run.fleet().done()) {
                reason = "the fleet replayed every request";
                break;
            }
            String failure = other.failure();
            if (failure != null) {
                reason = failure;
                rc = 1;
                break;
            }
        }
        if (rc == 0 && !reason.startsWith("Ctrl-C")) {
            // A job that fails at every start now restarts for minutes: a --duration run must not pass it as healthy.
            String unwell = other.unwellAtStop();
            if (unwell != null) {
                reason += "; " + unwell;
                rc = 1;
            }
        }
        if (!shownThisTick) {
            status.show(run.statusLine() + other.statusNote()); // where it stopped: the summary below follows from it
        }
        status.end();
        run.stopFleet();
        try {
            run.awaitDecisionsSettled(Duration.ofSeconds(5)); // the last routes' decisions are still being acknowledged
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        run.settleFleetRecords(); // the fleet's last records too: the summary counts what its close dropped
        // Records the fitting job and the decision log never get, or may not: not a clean stop, whatever ended the run.
        String lost = run.lostNote();
        if (lost != null) {
            reason += "; " + lost;
            rc = 1;
        }
        out.println("tierroute " + command + ": stopping (" + reason + ")");
        run.summary().forEach(l -> out.println("  " + l));
        other.summary().forEach(l -> out.println("  " + l));
        out.flush();
        return rc;
    }

    /**
     * When {@code duration} ends: counted from the end of the start-up ({@code startUpEndedNanos}, when the URLs are
     * printed), as --help says ("start-up not counted"), not from the replay's start, which came earlier (the demo
     * waits for --min-samples completions and submits its fitting job meanwhile); so the summary's "ran N s wall" is the
     * duration asked for. {@link Long#MAX_VALUE} without a duration.
     */
    static long deadlineNanos(Duration duration, long startUpEndedNanos) {
        if (duration == null) {
            return Long.MAX_VALUE;
        }
        return startUpEndedNanos + duration.toNanos();
    }

    /** How long to wait for a stop before the next check: a tick, or less when the deadline comes first (≥ 1 ms). */
    static long untilNextCheck(long tickMillis, long deadlineNanos, long nowNanos) {
        if (deadlineNanos == Long.MAX_VALUE) { // no --duration (and nanoTime may be negative: no subtraction)
            return tickMillis;
        }
        long left = deadlineNanos - nowNanos;
        return left <= 0 ? 1 : Math.max(1, Math.min(tickMillis, (left + 999_999) / 1_000_000));
    }

    /** The status line: redrawn in place on a terminal, a line of its own in a log. */
    private static final class StatusOutput {
        private final PrintWriter err;
        private final boolean terminal;
        private int shown;

        StatusOutput(PrintWriter err, boolean terminal) {
            this.err = err;
            this.terminal = terminal;
        }

        void show(String line) {
            if (terminal) {
                // Blanks over what a longer line before left (the Kafka outage suffix going away).
                err.print("\r" + line + " ".repeat(Math.max(2, shown - line.length())));
                shown = line.length();
            } else {
                err.println(line);
            }
            err.flush();
        }

        void end() {
            if (terminal) {
                err.println(); // ends the redrawn line
            }
            err.flush();
        }
    }
}
