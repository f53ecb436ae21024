package io.tierroute.cli;

import io.tierroute.deploy.local.RootCause;
import org.apache.flink.util.SerializedThrowable;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * What {@code tierroute demo} says of its fitting job, which runs with a restart strategy
 * ({@link Demo#setRestartStrategy}): how often it restarted and the innermost cause of the failure behind the last
 * restart (status line and summary), and, once it has ended (its restarts used up, or cancelled), why, in one line that
 * stops the demo.
 *
 * <p>It looks at the job once a tick of the status loop (at most a second apart). A restart is told by the time the job
 * last went RESTARTING, which changes once per restart: each waits out a back-off of at least 1.8 s (the strategy's
 * first, 2 s, less its jitter), so two restarts never fall between two looks. A look that fails (Flink slow to answer)
 * changes nothing.
 */
final class FittingJobWatch implements LiveStatus.Watched {

    /** How long after a failure the status line names its cause; afterwards it only counts the restarts. */
    static final Duration CAUSE_SHOWN = Duration.ofSeconds(60);

    /**
     * One look at the job: its state (a {@code JobStatus} name), when it last went RESTARTING (epoch ms, 0 never), its
     * newest failure (empty: none) and when that was (epoch ms), and when its latest checkpoint completed (epoch ms, 0
     * none): a restarted job is RUNNING again as soon as its back-off ends, before its tasks even deploy, so only a
     * checkpoint completed after the failure says the attempt works.
     */
    record Look(String state, long restartingAtMs, Optional<RootCause> failure, long failedAtMs,
                long lastCheckpointAtMs) {}

    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss");

    private final Callable<Look> looker;
    private Look last;
    private int restarts;
    private RootCause restartCause; // the failure behind the last restart
    private long restartFailedAtMs;

    FittingJobWatch(Callable<Look> looker) {
        this.looker = looker;
    }

    /** Why the demo must stop: the job has ended (failed for good, cancelled); null while it runs or restarts. */
    @Override
    public synchronized String failure() {
        look();
        if (last == null) {
            return null;
        }
        return switch (last.state()) {
            case "FAILED" -> "the fitting job " + JobStates.failed(true, last.failure());
            case "CANCELED", "FINISHED", "SUSPENDED" -> "the fitting job is " + last.state();
            default -> null;
        };
    }

    /**
     * {@code  · fitting job restarting (restart N; failure 12 s ago: CAUSE)} while it restarts, {@code  · fitting job
     * restarted N× (last failure 12 s ago: CAUSE)} for {@link #CAUSE_SHOWN} after, then {@code  · fitting job restarted
     * N×}; empty when it never restarted.
     */
    @Override
    public synchronized String statusNote() {
        if (last == null) {
            look();
        }
        if (restarts == 0) {
            return "";
        }
        long ago = Math.max(0, System.currentTimeMillis() - restartFailedAtMs) / 1000;
        String failure = "failure " + ago + " s ago: " + restartCause.innermost();
        if ("RESTARTING".equals(last.state())) {
            return " · fitting job restarting (restart " + restarts + "; " + failure + ")";
        }
        return " · fitting job restarted " + restarts + "×" + (ago < CAUSE_SHOWN.toSeconds() ? " (last " + failure + ")" : "");
    }

    /**
     * The job not recovered when the demo stops: restarted, and no checkpoint completed since the failure behind the
     * last restart (in its back-off, or an attempt failing again, RUNNING meanwhile). A job that never failed is well
     * however young (a short --duration).
     */
    @Override
    public synchronized String unwellAtStop() {
        look();
        if (last == null || restarts == 0 || last.lastCheckpointAtMs() > restartFailedAtMs) {
            return null;
        }
        return "the fitting job had not recovered (restart " + restarts + ", no checkpoint completed since the failure "
                + "at " + clockTime(restartFailedAtMs) + ": " + restartCause.innermost() + ")";
    }

    /** The summary's line on the restarts (how many, the last cause and when); none when it never restarted. */
    @Override
    public synchronized List<String> summary() {
        look();
        if (restarts == 0) {
            return List.of();
        }
        return List.of(String.format(Locale.ROOT, "fitting job: restarted %d %s from its last checkpoint; the last "
                        + "restart followed a failure at %s: %s", restarts, restarts == 1 ? "time" : "times",
                clockTime(restartFailedAtMs), restartCause.innermost()));
    }

    /** An epoch ms as this machine's time of day, to the second ({@code 14:03:12}). */
    private static String clockTime(long epochMillis) {
        return LocalTime.ofInstant(Instant.ofEpochMilli(epochMillis), ZoneId.systemDefault()).format(CLOCK);
    }

    /** How many times the job restarted so far. */
    synchronized int restarts() {
        return restarts;
    }

    private void look() {
        Look now;
        try {
            now = looker.call();
        } catch (Exception e) {
            return; // no answer this tick: the next look tells
        }
        if (now.restartingAtMs() != 0 && (last == null || now.restartingAtMs() != last.restartingAtMs())) {
            restarts++;
            restartCause = now.failure().orElse(new RootCause("unknown", "Flink has recorded no exception for it"));
            restartFailedAtMs = now.failure().isPresent() ? now.failedAtMs() : now.restartingAtMs();
        }
        last = now;
    }

    /**
     * The first line of a failure Flink recorded and of its innermost cause, {@code Class: message} without packages:
     * Flink keeps the failure as a {@link SerializedThrowable} whose causes are SerializedThrowables too.
     */
    static RootCause rootCause(Throwable failure) {
        Throwable innermost = failure;
        while (innermost.getCause() != null && innermost.getCause() != innermost) {
            innermost = innermost.getCause();
        }
        return new RootCause(oneLine(failure), oneLine(innermost));
    }

    /** {@code TimeoutException: Timeout expired after 60000ms while awaiting InitProducerId}: the class and message. */
    static String oneLine(Throwable t) {
        String className = t instanceof SerializedThrowable s ? s.getOriginalErrorClassName() : t.getClass().getName();
        String message = t.getMessage() == null ? "" : t.getMessage().strip();
        if (message.startsWith(className)) { // a SerializedThrowable's message is the original's toString()
            message = message.substring(className.length()).replaceFirst("^:\\s*", "");
        }
        String simple = className.substring(className.lastIndexOf('.') + 1);
        String first = message.lines().findFirst().orElse("");
        return first.isEmpty() ? simple : simple + ": " + first;
    }
}
