package io.tierroute.sim.trace;

/** The wording shared by both readers for a field or column whose value is wrong. */
final class BadField {

    private static final int SHOWN = 40;

    private BadField() {}

    /** {@code <what> must be <must>, got <got>}, with what like "field 'timestamp'" and got as written. */
    static IllegalArgumentException of(String what, String must, String got) {
        return new IllegalArgumentException(what + " must be " + must + ", got " + shorten(got));
    }

    /** The expectation for an integer in [min, max]. */
    static String integer(long min, long max) {
        return "an integer from " + min + " to " + max;
    }

    /**
     * A value from the file, cut so that an absurd line cannot flood the message, its control characters written as
     * escapes (ESC as backslash-u001B): a line's ESC sequences or NUL went to the terminal as they were.
     */
    static String shorten(String got) {
        String cut = got.length() <= SHOWN ? got : got.substring(0, SHOWN) + "…";
        StringBuilder out = null;
        for (int i = 0; i < cut.length(); i++) {
            char c = cut.charAt(i);
            if (Character.isISOControl(c)) {
                if (out == null) {
                    out = new StringBuilder(cut.length() + 16).append(cut, 0, i);
                }
                out.append(String.format(java.util.Locale.ROOT, "\\u%04X", (int) c));
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? cut : out.toString();
    }
}
