package io.tierroute.sim.bench;

/**
 * How the HTML pages draw the {@code i}-th policy: a colour, and from the eleventh on a dash pattern too, so that every
 * registered policy (17) is told apart and keeps its look across report.html and summary.html. Twenty colours, each
 * distinct: the category10 palette, then black and the light partners of the ten, which are also dashed so a pair
 * differs in more than shade. Pairwise distinct up to 60 policies.
 *
 * @param color a CSS colour
 * @param dash  an SVG {@code stroke-dasharray}, or null for a solid line
 */
record SeriesStyle(String color, String dash) {

    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
            "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#aec7e8", "#ff9896", "#98df8a", "#ffbb78",
            "#c5b0d5", "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5"};
    /** Solid, dashed, dotted: by tens of policies. */
    private static final String[] DASHES = {null, "6,3", "2,2"};

    static SeriesStyle of(int i) {
        return new SeriesStyle(COLORS[i % COLORS.length], DASHES[i / 10 % DASHES.length]);
    }

    /** The SVG attributes of a line in this style. */
    String stroke() {
        return "stroke=\"" + color + "\"" + (dash == null ? "" : " stroke-dasharray=\"" + dash + "\"");
    }

    /** A short line in this style, for a legend. */
    String swatch() {
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"28\" height=\"10\"><line x1=\"1\" y1=\"5\" x2=\"27\" "
                + "y2=\"5\" stroke-width=\"2.5\" " + stroke() + "/></svg>";
    }
}
