package io.tierroute.sim.bench;

/** Text into the benchmark's HTML pages: one escaping rule for every report, element text and quoted attributes alike. */
final class Html {

    private Html() {
    }

    /** {@code & < > "} as entities: safe in element text and in double-quoted attributes (the only kind the reports write). */
    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
