package io.tierroute.dashboards.control;

/**
 * The actor and reason of a control record are shown to other operators: on the dashboard and in
 * terminals ({@code snapshots list}). A newline would forge an audit line, an escape sequence would
 * rewrite the screen, so writers refuse control characters and printers escape any an older or foreign
 * writer left on the topic.
 */
public final class ControlText {

    private ControlText() {
    }

    /**
     * Whether {@code s} holds a control character (C0, DEL, C1; newline and tab included), a line or paragraph
     * separator, or a format character (bidi overrides, zero-width joiners: text that reads other than it is).
     */
    public static boolean hasControlCharacter(String s) {
        return s.chars().anyMatch(ControlText::isControl);
    }

    private static boolean isControl(int c) {
        int type = Character.getType(c);
        return Character.isISOControl(c) || type == Character.FORMAT || type == Character.LINE_SEPARATOR
                || type == Character.PARAGRAPH_SEPARATOR;
    }

    /** {@code s} with every control character written as a visible escape ({@code \n}, {@code \u001b}). */
    public static String printable(String s) {
        if (s == null || !hasControlCharacter(s)) {
            return s;
        }
        StringBuilder sb = new StringBuilder(s.length() + 8);
        s.chars().forEach(c -> {
            if (c == '\n') {
                sb.append("\\n");
            } else if (c == '\t') {
                sb.append("\\t");
            } else if (isControl(c)) {
                sb.append(String.format("\\u%04x", c));
            } else {
                sb.append((char) c);
            }
        });
        return sb.toString();
    }
}
