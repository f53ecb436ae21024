package io.tierroute.cli;

/** What a Flink job state means for an operator of the fitting job (states of Flink's {@code JobStatus}). */
final class JobStates {

    private JobStates() {
    }

    /** A job that publishes nothing and will not by itself: restarting without slots, failing or failed. */
    static boolean halted(String state) {
        return switch (state) {
            case "RESTARTING", "FAILING", "FAILED", "SUSPENDED" -> true;
            default -> false;
        };
    }

    /** One line on a {@link #halted} state: what it means and what the selectors serve meanwhile. */
    static String explain(String state) {
        String meanwhile = "no snapshot is published meanwhile; selectors keep serving the last accepted one";
        return switch (state) {
            case "RESTARTING" -> "restarting: it waits for task slots (a TaskManager gone?); " + meanwhile;
            case "FAILING", "FAILED" -> "failed: its restarts are used up; " + meanwhile;
            case "SUSPENDED" -> "suspended: the JobManager lost its leadership; " + meanwhile;
            default -> state;
        };
    }
}
