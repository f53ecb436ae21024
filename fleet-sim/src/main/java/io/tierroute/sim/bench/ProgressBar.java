package io.tierroute.sim.bench;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Progress on stderr. On a terminal, one line redrawn with {@code \r}:
 * {@code [#####.....]  48%  policy @ load  1234/2560}, fitted to the terminal's width ({@link #frame}). Elsewhere
 * (logs, CI) {@code \r} frames would pile up as dozens of lines per run, so it prints a plain line each time a run
 * passes another 10 %, and the final line. When told how many runs there are ({@link #countRuns}), every line starts
 * with the run's number and the context ({@code [3/24] seed 2: random @ load 1.00 ...}).
 */
public final class ProgressBar {

    private static final int WIDTH = 30;
    /** The narrowest bar before the label gives up its last characters. */
    private static final int MIN_BAR = 10;
    /** Labels are padded to this, so the count stays in place from one run to the next. */
    private static final int LABEL_PAD = 40;
    /** A frame's characters besides the bar, the label and the count: {@code "[" "] " "100%" "  " " "}. */
    private static final int FIXED = 10;
    /** The terminal's width when {@code COLUMNS} does not give it. */
    static final int DEFAULT_COLUMNS = 80;
    /** The widest frame drawn, whatever COLUMNS says (an absurd value would build a frame as wide). */
    static final int MAX_COLUMNS = 1000;
    private final PrintStream err;
    private final boolean terminal;
    private final int columns;
    private String lastLabel;
    private int lastTenth = -1;
    private int lastDone;
    private boolean frameShown; // a redrawn frame is on the terminal's current line
    private int runsTotal; // 0: not counting
    private int runsDone;
    private String context;

    public ProgressBar(PrintStream err, boolean terminal) {
        this(err, terminal, DEFAULT_COLUMNS);
    }

    /** On a terminal {@code columns} wide: each frame fits in it ({@link #frame}). */
    public ProgressBar(PrintStream err, boolean terminal, int columns) {
        this.err = err;
        this.terminal = terminal;
        this.columns = columns;
    }

    /** The system property {@code bin/tierroute} sets from {@code [ -t 2 ]}: whether stderr is a terminal. */
    static final String STDERR_TERMINAL = "tierroute.stderrTerminal";

    /**
     * On {@code System.err}, redrawn only when stderr is a terminal: as {@link #STDERR_TERMINAL} says, else (the
     * jar run directly) as {@link #stderrIsTerminal} finds.
     */
    public static ProgressBar stderr() {
        return new ProgressBar(System.err, stderrIsTerminal(), columns(System.getenv("COLUMNS")));
    }

    /**
     * The terminal's width as the {@code COLUMNS} environment variable gives it (a positive whole number), else
     * {@link #DEFAULT_COLUMNS}: Java cannot ask the terminal, and a shell exports COLUMNS only when told to.
     */
    static int columns(String env) {
        if (env == null) {
            return DEFAULT_COLUMNS;
        }
        try {
            int c = Integer.parseInt(env.strip());
            return c > 0 ? Math.min(c, MAX_COLUMNS) : DEFAULT_COLUMNS; // a frame is built that wide
        } catch (NumberFormatException e) {
            return DEFAULT_COLUMNS;
        }
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

    /** The label with the run's number when counting, and the context too when {@code withContext}. */
    private String decorate(String label, boolean withContext) {
        if (runsTotal == 0) {
            return label;
        }
        return "[" + Math.min(runsDone + 1, runsTotal) + "/" + runsTotal + "] "
                + (context == null || !withContext ? "" : context + ": ") + label;
    }

    public void update(String label, int done, int total) {
        int percent = total == 0 ? 100 : (int) (100L * done / total);
        if (!terminal) {
            plain(decorate(label, true), done, total, percent);
            return;
        }
        err.print("\r" + frame(decorate(label, true), decorate(label, false), done, total, percent));
        err.flush();
        frameShown = true;
    }

    /**
     * Blanks the redrawn frame so that a line printed next (a warning) starts on a clean line instead of being glued to
     * the bar; the next {@link #update} draws the frame again below it. Nothing to do off a terminal.
     */
    public void clearFrame() {
        if (terminal && frameShown) {
            err.print("\r" + " ".repeat(Math.max(1, columns - 1)) + "\r");
            err.flush();
            frameShown = false;
        }
    }

    /**
     * One redrawn frame, {@code [###...] 48%  label 1234/2560}, at most {@code columns - 1} characters: a wider one
     * wraps, and every redraw then scrolls a line instead of replacing it (a character in the last column wraps on
     * some terminals too). Room is taken first from the label ({@code full}, then {@code compact}: without the
     * context, which the run's number stands for), then from the bar, down to {@link #MIN_BAR}, then from the label's
     * end; on a terminal too narrow even for that, the bar and the percentage go. The n/total count is never cut.
     */
    String frame(String full, String compact, int done, int total, int percent) {
        // As wide as the run's last count from the first frame on, so the bar keeps its width through the run.
        String count = String.format(Locale.ROOT, "%" + (2 * Integer.toString(total).length() + 1) + "s", done + "/" + total);
        int max = columns - 1;
        int room = max - FIXED - count.length(); // for the bar and the label
        if (room < MIN_BAR) {
            String bare = String.format(Locale.ROOT, "%3d%% %s", percent, count);
            return bare.length() <= max ? bare : count;
        }
        int bar = WIDTH;
        String label = full.length() <= room - bar ? full : compact;
        if (label.length() > room - bar) {
            bar = Math.max(MIN_BAR, room - label.length());
        }
        int labelRoom = room - bar;
        int filled = total == 0 ? bar : (int) ((long) done * bar / total);
        StringBuilder sb = new StringBuilder(max).append('[');
        for (int i = 0; i < bar; i++) {
            sb.append(i < filled ? '#' : '.');
        }
        String shown = shorten(label, labelRoom);
        String padded = shown + " ".repeat(Math.max(0, Math.min(LABEL_PAD, labelRoom) - shown.length()));
        return sb.append(String.format(Locale.ROOT, "] %3d%%  %s %s", percent, padded, count)).toString();
    }

    /** {@code label} in at most {@code room} characters, its end replaced by "…" when it is longer. */
    static String shorten(String label, int room) {
        if (label.length() <= room) {
            return label;
        }
        return room <= 0 ? "" : label.substring(0, room - 1) + "…";
    }

    private void plain(String label, int done, int total, int percent) {
        if (!label.equals(lastLabel) || done < lastDone) { // another run, or the same label run again
            lastLabel = label;
            lastTenth = 0; // a run's 0 % is no news: its first line is at 10 %
        }
        lastDone = done;
        int tenth = percent / 10;
        if (tenth > lastTenth && tenth < 10) { // 100 % is finish()'s line
            lastTenth = tenth;
            err.printf(Locale.ROOT, "%s: %d%% %d/%d%n", label, percent, done, total);
            err.flush();
        }
    }

    public void finish(String line) {
        line = decorate(line, true);
        if (runsTotal > 0) {
            runsDone++;
        }
        lastDone = 0;
        frameShown = false;
        if (terminal) {
            // Padded over the last frame (at most columns - 1 wide); the line itself is kept whole: it is not redrawn.
            err.printf("\r%-" + Math.max(1, columns - 1) + "s%n", line);
        } else {
            err.println(line);
        }
        err.flush();
    }
}
