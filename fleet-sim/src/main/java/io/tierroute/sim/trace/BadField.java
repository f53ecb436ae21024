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

    /** A value from the file, cut so that an absurd line cannot flood the message. */
    static String shorten(String got) {
        return got.length() <= SHOWN ? got : got.substring(0, SHOWN) + "…";
    }
}
