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
     * jar run directly) as {@link #stderrIsTerminal} finds.
     */
    public static ProgressBar stderr() {
        return new ProgressBar(System.err, stderrIsTerminal());
    }

    /**
     * Whether {@code System.err} is a terminal: as {@link #STDERR_TERMINAL} says; else, on Linux, whether file
     * descriptor 2 is a terminal device; else whether there is a console (Java 17 decides that from stdin and stdout
     * only, so {@code 2>log} from a terminal would get the redrawn frames).
     */
    public static boolean stderrIsTerminal() {
        return stderrTerminal(System.getProperty(STDERR_TERMINAL), stderrDevice(), System.console() != null);
    }

    /** Where file descriptor 2 points ({@code /dev/pts/3}, a file, {@code pipe:[…]}), or null off Linux. */
    private static String stderrDevice() {
        try {
            return java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/self/fd/2")).toString();
        } catch (java.io.IOException | UnsupportedOperationException | SecurityException e) {
            return null;
        }
    }

    static boolean stderrTerminal(String said, String device, boolean console) {
        if (said != null) {
            return Boolean.parseBoolean(said);
        }
        if (device != null) {
            return device.startsWith("/dev/pts/") || device.startsWith("/dev/tty") || device.equals("/dev/console");
        }
        return console;
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
