package io.tierroute.deploy.local;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;
import java.util.Optional;

/**
 * Why a job failed or restarted, from {@code GET /jobs/<id>/exceptions}: the newest entry of its exception history
 * (Flink 2.x; before, the {@code root-exception} string), as its top line and its innermost cause. Flink wraps the
 * cause a user can act on: a job that found no task slot reports {@code JobException: Recovery is suppressed by ...},
 * then two {@code CompletionException}s, and only then {@code NoResourceAvailableException}.
 *
 * @param first     the exception's first line, without package names
 * @param innermost its innermost cause's first line, without package names ({@code first} when it has none)
 */
public record RootCause(String first, String innermost) {

    /** The newest exception of an answer of {@code GET /jobs/<id>/exceptions}; empty when the job has none. */
    static Optional<RootCause> of(JsonNode exceptions) {
        JsonNode entries = exceptions.path("exceptionHistory").path("entries");
        String trace = entries.isArray() && entries.size() > 0
                ? entries.get(0).path("stacktrace").asText(entries.get(0).path("exceptionName").asText(""))
                : exceptions.path("root-exception").asText("");
        return fromTrace(trace);
    }

    /**
     * The first line and the innermost {@code Caused by:} of the main cause chain of a Java stack trace; empty for a
     * blank one. A {@code Suppressed:} block (the JDK prints it one tab deeper than the exception it belongs to, its
     * own causes too) is not part of that chain: the exception suppressed while the innermost cause was handled, e.g.
     * a failed close, comes after the last {@code Caused by:} of the main chain and is not why the job failed.
     */
    static Optional<RootCause> fromTrace(String trace) {
        List<String> lines = FlinkErrorText.withoutStackFrames(trace).lines().toList();
        if (lines.isEmpty()) {
            return Optional.empty();
        }
        String first = lines.get(0).strip();
        String innermost = first;
        String mainChain = indent(lines.get(0)) + CAUSED_BY;
        for (String l : lines) {
            if (l.startsWith(mainChain)) {
                innermost = l.substring(mainChain.length()).strip();
            }
        }
        return Optional.of(new RootCause(withoutPackages(first), withoutPackages(innermost)));
    }

    static final String CAUSED_BY = "Caused by: ";

    /** The whitespace a line starts with. */
    static String indent(String line) {
        int i = 0;
        while (i < line.length() && Character.isWhitespace(line.charAt(i))) {
            i++;
        }
        return line.substring(0, i);
    }

    /** Whether the innermost cause is Flink's: no task slot could be had for the job within the slot request timeout. */
    public boolean noResourceAvailable() {
        return exceptionClass().equals("NoResourceAvailableException");
    }

    /** The innermost cause's class without its package, e.g. {@code NoResourceAvailableException}. */
    public String exceptionClass() {
        int colon = innermost.indexOf(':');
        return colon < 0 ? innermost : innermost.substring(0, colon);
    }

    /** "X: message", and the top line Flink reports it under unless that only wraps it (CompletionException: X: ...). */
    @Override
    public String toString() {
        return first.endsWith(innermost) ? innermost : innermost + " (Flink reports it under " + first + ")";
    }

    /**
     * {@code a.b.C: d.e.F: m} → {@code C: F: m}: the class names of a wrapped cause's line without their packages
     * (a CompletionException repeats its cause's whole name in its message).
     */
    private static String withoutPackages(String line) {
        return line.replaceAll("(?<![\\w$.])(?:[a-z_][\\w$]*\\.)+([A-Z][\\w$]*(?::|$))", "$1");
    }
}
