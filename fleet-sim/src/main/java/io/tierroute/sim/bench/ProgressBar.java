package io.tierroute.sim.bench;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Progress on stderr. On a terminal, one line redrawn with {@code \r}:
 * {@code [#####.....]  48%  policy @ load  1234/2560}. Elsewhere (logs, CI) {@code \r} frames would pile
 * up as dozens of lines per run, so it prints a plain line each time a run passes another 10 %, and the
 * final line.
 */
public final class ProgressBar {

    private static final int WIDTH = 30;
    private final PrintStream err;
    private final boolean terminal;
    private String lastLabel;
    private int lastTenth = -1;

    public ProgressBar(PrintStream err, boolean terminal) {
        this.err = err;
        this.terminal = terminal;
    }

    /** The system property {@code bin/tierroute} sets from {@code [ -t 2 ]}: whether stderr is a terminal. */
    static final String STDERR_TERMINAL = "tierroute.stderrTerminal";

    /**
     * On {@code System.err}, redrawn only when stderr is a terminal: as {@link #STDERR_TERMINAL} says, else (the
     * jar run directly) when there is a console, which Java decides from stdin and stdout only.
     */
    public static ProgressBar stderr() {
        return new ProgressBar(System.err, stderrTerminal(System.getProperty(STDERR_TERMINAL), System.console() != null));
    }

    static boolean stderrTerminal(String said, boolean console) {
        return said != null ? Boolean.parseBoolean(said) : console;
    }

    public void update(String label, int done, int total) {
        int percent = total == 0 ? 100 : (int) (100L * done / total);
        if (!terminal) {
            plain(label, done, total, percent);
            return;
        }
        int filled = total == 0 ? WIDTH : (int) ((long) done * WIDTH / total);
        StringBuilder bar = new StringBuilder(WIDTH);
        for (int i = 0; i < WIDTH; i++) {
            bar.append(i < filled ? '#' : '.');
        }
        err.printf(Locale.ROOT, "\r[%s] %3d%%  %-40s %d/%d", bar, percent, label, done, total);
        err.flush();
    }

    private void plain(String label, int done, int total, int percent) {
        if (!label.equals(lastLabel)) {
            lastLabel = label;
            lastTenth = 0; // a run's 0 % is no news: its first line is at 10 %
        }
        int tenth = percent / 10;
        if (tenth > lastTenth && tenth < 10) { // 100 % is finish()'s line
            lastTenth = tenth;
            err.printf(Locale.ROOT, "%s: %d%% %d/%d%n", label, percent, done, total);
            err.flush();
        }
    }

    public void finish(String line) {
        if (terminal) {
            err.printf("\r%-100s%n", line);
        } else {
            err.println(line);
        }
        err.flush();
    }
}
