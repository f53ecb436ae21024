package io.tierroute.sim.bench;

import java.io.PrintStream;
import java.util.Locale;

/** A one-line progress bar on stderr: {@code [#####.....]  48%  policy @ load  1234/2560}. */
public final class ProgressBar {

    private static final int WIDTH = 30;
    private final PrintStream err;

    public ProgressBar(PrintStream err) {
        this.err = err;
    }

    public void update(String label, int done, int total) {
        int filled = total == 0 ? WIDTH : (int) ((long) done * WIDTH / total);
        StringBuilder bar = new StringBuilder(WIDTH);
        for (int i = 0; i < WIDTH; i++) {
            bar.append(i < filled ? '#' : '.');
        }
        err.printf(Locale.ROOT, "\r[%s] %3d%%  %-40s %d/%d", bar, total == 0 ? 100 : (int) (100L * done / total),
                label, done, total);
        err.flush();
    }

    public void finish(String line) {
        err.printf("\r%-100s%n", line);
        err.flush();
    }
}
