package io.tierroute.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The foreground of {@code demo} and {@code fleet} once everything runs: the fleet's status line on stderr, every
 * interval, until Ctrl-C, the duration, the end of the requests or a failure; then the fleet stops, its last decisions
 * settle and the summary is printed. On a terminal the line is redrawn in place; in a log (a file, a pipe, a service
 * manager) each status is a line of its own, so the log does not become one endless line of carriage returns.
 */
final class LiveStatus {

    private LiveStatus() {
    }

    /**
     * Runs the loop and the summary; 0 when it stopped cleanly, 1 on a failure. {@code otherFailure} names a failure
     * of something beside the fleet (the demo's fitting job), or returns null while all is well. {@code terminal}: whether
     * {@code err} is a terminal.
     */
    static int run(String command, FleetRun run, StopOnCtrlC stop, boolean terminal, Duration interval, Duration duration,
                   Supplier<String> otherFailure, PrintWriter out, PrintWriter err) throws InterruptedException {
        int rc = 0;
        long deadline = duration == null ? Long.MAX_VALUE : System.nanoTime() + duration.toNanos();
        String reason = "Ctrl-C or SIGTERM"; // a shutdown hook cannot tell them apart
        int shown = 0;
        while (!stop.await(Math.max(50, interval.toMillis()))) {
            String line = run.statusLine();
            if (terminal) {
                // Blanks over what a longer line before left (the Kafka outage suffix going away).
                err.print("\r" + line + " ".repeat(Math.max(2, shown - line.length())));
                shown = line.length();
            } else {
                err.println(line);
            }
            err.flush();
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
            String other = otherFailure.get();
            if (other != null) {
                reason = other;
                rc = 1;
                break;
            }
        }
        if (terminal) {
            err.println(); // ends the redrawn line
        }
        err.flush();
        run.fleet().stop();
        try {
            run.awaitDecisionsSettled(Duration.ofSeconds(5)); // the last routes' decisions are still being acknowledged
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        out.println("tierroute " + command + ": stopping (" + reason + ")");
        run.summary().forEach(l -> out.println("  " + l));
        out.flush();
        return rc;
    }
}
