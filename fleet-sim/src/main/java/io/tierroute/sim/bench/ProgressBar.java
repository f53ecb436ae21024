package io.tierroute.sim.bench;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Progress on stderr. On a terminal, one line redrawn with {@code \r}:
 * {@code [#####.....]  48%  policy @ load  1234/2560}. Elsewhere (logs, CI) {@code \r} frames would pile
 * up as dozens of lines per run, so it prints a plain line each time a run passes another 10 %, and the
 * final line. When told how many runs there are ({@link #countRuns}), every line starts with the run's number
 * and the context ({@code [3/24] seed 2: random @ load 1.00 ...}).
 */
public final class ProgressBar {

    private static final int WIDTH = 30;
    private final PrintStream err;
    private final boolean terminal;
    private String lastLabel;
    private int lastTenth = -1;
    private int runsTotal; // 0: not counting
    private int runsDone;
    private String context;

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
        return new ProgressBar(System.err, stderrIsTerminal());
    }

    /** Whether {@code System.err} is a terminal, as {@link #STDERR_TERMINAL} says, else as the console says. */
    public static boolean stderrIsTerminal() {
        return stderrTerminal(System.getProperty(STDERR_TERMINAL), System.console() != null);
    }

    static boolean stderrTerminal(String said, boolean console) {
        return said != null ? Boolean.parseBoolean(said) : console;
    }

    /** Numbers the runs from here on, out of {@code total}: each {@link #finish} ends one. */
    public ProgressBar countRuns(int total) {
        this.runsTotal = total;
        this.runsDone = 0;
        return this;
    }

    /** Shown before the labels of the runs that follow while counting (e.g. "seed 3"); null for none. */
    public ProgressBar context(String context) {
        this.context = context;
        return this;
    }

    private String decorate(String label) {
        if (runsTotal == 0) {
            return label;
        }
        return "[" + Math.min(runsDone + 1, runsTotal) + "/" + runsTotal + "] " + (context == null ? "" : context + ": ") + label;
    }

    public void update(String label, int done, int total) {
        label = decorate(label);
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
        line = decorate(line);
        if (runsTotal > 0) {
            runsDone++;
        }
        if (terminal) {
            err.printf("\r%-100s%n", line);
        } else {
            err.println(line);
        }
        err.flush();
    }
}
