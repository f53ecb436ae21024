package io.tierroute.cli;

import io.tierroute.dashboards.control.ControlText;
import io.tierroute.dashboards.history.Fitted;
import io.tierroute.dashboards.history.ScopeState;
import io.tierroute.dashboards.history.VersionRecord;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.NavigableSet;
import java.util.Optional;

/** How the snapshots commands print a scope, a version, a time, a number and a table. */
final class SnapshotsText {

    private SnapshotsText() {}

    /** The scope's line: how many versions the topic holds ({@code onTopic}, not a read's window of them), the active one, the pin. */
    static String header(ScopeState s, NavigableSet<Long> onTopic) {
        return "scope " + ControlText.printable(s.scope()) + ": " + onTopic.size() + " versions (" + range(onTopic)
                + "), active " + (s.activeVersion() == null ? "none" : s.activeVersion()) + served(s) + ", "
                + describe(s);
    }

    /** When selectors cannot use the active version: what they serve instead. */
    static String served(ScopeState s) {
        if (!s.servesAnother()) {
            return "";
        }
        return " (selectors cannot use it: " + (s.servedVersion() == null ? "they keep the version they served"
                : "they serve " + s.servedVersion()) + ")";
    }

    static String describe(ScopeState s) {
        Optional<ScopeState.ControlEntry> last = s.controls().stream().findFirst();
        String pin = s.pinned() ? "pinned to " + s.pinnedVersion() : "not pinned";
        return last.map(c -> pin + " (last control: " + c.action() + (c.version() == null ? "" : " " + c.version())
                + " by " + ControlText.printable(c.actor()) + " at " + time(c.timestampMs()) + " UTC, sequence "
                + c.sequence() + ": \"" + ControlText.printable(c.reason()) + "\")").orElse(pin);
    }

    static String range(NavigableSet<Long> vs) {
        return vs.isEmpty() ? "no versions" : "versions " + vs.first() + ".." + vs.last();
    }

    static String markers(ScopeState s, VersionRecord v) {
        List<String> m = new ArrayList<>();
        if (s.activeVersion() != null && s.activeVersion() == v.version()) {
            m.add("active");
        }
        if (s.pinned() && s.pinnedVersion() != null && s.pinnedVersion() == v.version()) {
            m.add("pinned");
        }
        if (s.servesAnother() && s.isServed(v.version())) {
            m.add("served");
        }
        if (!v.usable()) {
            m.add("unusable");
        }
        return String.join(",", m);
    }

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
            .withZone(ZoneOffset.UTC);

    static String time(long ms) {
        return TIME.format(Instant.ofEpochMilli(ms));
    }

    static String window(Fitted f) {
        if (f.windowStartMs() == 0 && f.windowEndMs() == 0) {
            return "- (default)";
        }
        Duration d = Duration.ofMillis(f.windowEndMs() - f.windowStartMs());
        return time(f.windowStartMs()) + " .. " + time(f.windowEndMs()) + " (" + d.toString().substring(2)
                .toLowerCase(Locale.ROOT) + ")";
    }

    /** Six significant digits, trailing zeros dropped. */
    static String num(double x) {
        if (x == 0) {
            return "0";
        }
        if (!Double.isFinite(x)) {
            return Double.toString(x);
        }
        String s = String.format(Locale.ROOT, "%.6g", x);
        int e = s.indexOf('e');
        String mant = e < 0 ? s : s.substring(0, e);
        String exp = e < 0 ? "" : s.substring(e);
        if (mant.contains(".")) {
            mant = mant.replaceAll("0+$", "").replaceAll("\\.$", "");
        }
        return mant + exp;
    }

    /** Left-aligned columns two spaces apart; the last column unpadded. */
    static void table(PrintWriter out, List<String[]> rows) {
        int cols = rows.get(0).length;
        int[] w = new int[cols];
        for (String[] r : rows) {
            for (int i = 0; i < cols; i++) {
                w[i] = Math.max(w[i], r[i].length());
            }
        }
        for (String[] r : rows) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < cols; i++) {
                b.append(i == cols - 1 ? r[i] : String.format("%-" + (w[i] + 2) + "s", r[i]));
            }
            out.println(b.toString().stripTrailing());
        }
    }

    /** Longest REASON cell of {@code list}: the gate's reasons run past a thousand characters; {@code show} has them all. */
    static final int REASON_WIDTH = 120;

    static String abridged(String reasons, long version) {
        return reasons.length() <= REASON_WIDTH ? reasons
                : reasons.substring(0, REASON_WIDTH) + "… (snapshots show " + version + ")";
    }
}
