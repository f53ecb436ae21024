package io.tierroute.deploy.local;

import java.util.List;

/**
 * Flink's error text made readable in a terminal: a Java stack trace without its frames, and a REST error's
 * {@code errors} reduced to one line, its innermost cause without package names. Used for failed calls
 * ({@link FlinkRestTransport}), failed savepoints ({@link FlinkSavepoints}), a job's root exception
 * ({@link FlinkJobs}) and {@link RootCause}.
 */
final class FlinkErrorText {

    private FlinkErrorText() {
    }

    /**
     * One line from a REST error's {@code errors}: the innermost cause of the server's stack trace (e.g. the
     * job's own IllegalArgumentException under Flink's 4 wrappers), plus where the whole chain is when there
     * was one. A chain of 7–11 "Caused by" lines buried the one that mattered. Only the main chain counts (as in
     * {@link RootCause#fromTrace}): the causes of a {@code Suppressed:} block are indented.
     */
    static String rootCause(List<String> errors) {
        String first = null;
        String innermost = null;
        for (String e : errors) {
            for (String line : withoutStackFrames(e).lines().toList()) {
                String t = line.strip();
                if (line.startsWith(RootCause.CAUSED_BY)) { // not one of a Suppressed: block, which is indented
                    innermost = t.substring(RootCause.CAUSED_BY.length());
                } else if (first == null && !t.equals("Internal server error.") && !t.startsWith("<Exception on server side")
                        && !t.startsWith("End of exception on server side")) {
                    first = t;
                }
            }
        }
        if (innermost == null) {
            return first == null ? String.join("; ", errors) : withoutPackage(first);
        }
        return withoutPackage(innermost) + " (see the Flink JobManager log for the whole cause chain)";
    }

    /** {@code java.lang.IllegalArgumentException: m} → {@code IllegalArgumentException: m}. */
    private static String withoutPackage(String line) {
        return line.replaceFirst("^(?:[a-z_$][\\w$]*\\.)+([A-Z][\\w$]*(?::|$))", "$1");
    }

    /** A Java stack trace's messages and causes without its frames: what went wrong, readable in a terminal. */
    static String withoutStackFrames(String trace) {
        return String.join("\n", trace.lines().filter(l -> {
            String t = l.strip();
            return !t.isEmpty() && !t.startsWith("at ") && !(t.startsWith("...") && t.endsWith("more"));
        }).toList());
    }
}
