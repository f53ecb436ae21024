package io.tierroute.cli;

/** A count and its noun as the cli prints them: "1 worker", "8 workers". */
final class Plural {

    private Plural() {
    }

    /** {@code n} and {@code noun}, with an 's' unless {@code n} is 1 (every noun the cli counts takes one). */
    static String of(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }
}
