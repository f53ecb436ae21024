package io.tierroute.cli;

import io.tierroute.dashboards.control.ControlText;
import io.tierroute.dashboards.history.Fitted;
import io.tierroute.dashboards.history.ParameterNames;
import io.tierroute.dashboards.history.ScopeState;
import io.tierroute.dashboards.history.SnapshotHistory;
import io.tierroute.dashboards.history.VersionRecord;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.WorkerTierRho;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeMap;

import static io.tierroute.cli.SnapshotsCommand.EXIT_0;
import static io.tierroute.cli.SnapshotsCommand.EXIT_1_READ;
import static io.tierroute.cli.SnapshotsCommand.EXIT_2;
import static io.tierroute.cli.SnapshotsCommand.EXIT_HEADING;
import static io.tierroute.cli.SnapshotsText.*;

/** {@code tierroute snapshots list|show|diff}: what the history holds; they only read. */
final class SnapshotsReadCommands {

    private SnapshotsReadCommands() {}

    @Command(name = "list", mixinStandardHelpOptions = true, versionProvider = TierrouteCommand.Version.class,
            exitCodeListHeading = EXIT_HEADING,
            exitCodeList = {EXIT_0, EXIT_1_READ, EXIT_2},
            description = "List the versions of a scope, newest first, with status (accepted / rejected + reason), "
                    + "the active and pinned markers (and 'unusable' / 'served' where selectors cannot use the active "
                    + "version and serve another) and the pin's actor and reason.")
    static final class ListCmd extends SnapshotsCommand.Base {
        @Option(names = {"-n", "--limit"}, paramLabel = "N", defaultValue = "20",
                description = "Show the newest N versions (default: ${DEFAULT-VALUE}; 0: all, up to the newest "
                        + SnapshotHistory.DEFAULT_MAX_VERSIONS + ", which is as many as the command reads per scope; "
                        + "'snapshots show VERSION' shows any older one).")
        int limit;

        @Override
        void checkArguments(CommandLine cl) {
            if (limit < 0) {
                throw new CommandLine.ParameterException(cl, "--limit must be ≥ 0 (0: all), got " + limit);
            }
        }

        @Override
        void run(SnapshotsKafka kafka) {
            SnapshotsKafka.Read read = read(kafka);
            ScopeState s = scope(read.history());
            NavigableSet<Long> onTopic = read.onTopic().of(s.scope());
            out.println(header(s, onTopic));
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"VERSION", "STATUS", "MARKERS", "PARENT", "CREATED (UTC)", "PRODUCER", "REASON"});
            List<VersionRecord> vs = new ArrayList<>(s.versions());
            java.util.Collections.reverse(vs);
            int shown = limit <= 0 ? vs.size() : Math.min(limit, vs.size());
            for (VersionRecord v : vs.subList(0, shown)) {
                // Producer and reasons come from the topic (a worker's name reaches a reason: rho[<worker>/<tier>]):
                // escaped, so no escape sequence in them rewrites the terminal.
                rows.add(new String[] {Long.toString(v.version()), v.status().toLowerCase(Locale.ROOT), markers(s, v),
                        v.parentVersion() == null ? "-" : v.parentVersion().toString(), time(v.createdAtMs()),
                        ControlText.printable(v.producer()),
                        abridged(ControlText.printable(String.join("; ", reasons(v))), v.version())});
            }
            table(out, rows);
            if (shown < onTopic.size()) {
                out.println(olderNotShown(shown, vs.size(), onTopic.size()));
            }
        }

        /** The gate's reasons, then why selectors cannot use the version (when they cannot). */
        static List<String> reasons(VersionRecord v) {
            List<String> r = new ArrayList<>(v.rejectReasons());
            if (!v.usable()) {
                r.add("selectors cannot use it: " + v.unusable());
            }
            return r;
        }

        /**
         * The line under the table when versions on the topic were left out: by --limit, or as older than the newest
         * {@code held} the read keeps, which no --limit lists (the line then says so, and what shows them).
         */
        static String olderNotShown(int shown, int held, int onTopic) {
            String notShown = "(" + (onTopic - shown) + " older versions not shown";
            if (held == onTopic) {
                return notShown + "; --limit 0 shows all)";
            }
            String older = "'snapshots show VERSION' shows any older one)";
            return shown < held
                    ? notShown + "; --limit 0 lists the newest " + held + ", as many as the command reads per scope, and "
                            + older
                    : notShown + ": the command reads the newest " + held + " versions of a scope; " + older;
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, versionProvider = TierrouteCommand.Version.class,
            exitCodeListHeading = EXIT_HEADING,
            exitCodeList = {EXIT_0, EXIT_1_READ, EXIT_2},
            description = "Show one snapshot: status, every fitted parameter with unit, value, samples, quality, "
                    + "standard error and event-time window, and a summary of its per-worker rho.")
    static final class Show extends SnapshotsCommand.Base {
        @Parameters(index = "0", paramLabel = "VERSION", description = "The version.")
        long version;

        @Override
        void checkArguments(CommandLine cl) {
            requireVersion(cl, "VERSION", version);
        }

        @Override
        Set<Long> named() {
            return Set.of(version);
        }

        @Override
        void run(SnapshotsKafka kafka) {
            SnapshotsKafka.Read read = read(kafka);
            ScopeState s = scope(read.history());
            VersionRecord v = version(read, s, version);
            String m = markers(s, v);
            // Scope, producer, reasons and the forest's target come from the topic: escaped, as in 'list'.
            out.println("scope " + ControlText.printable(s.scope()) + ", version " + v.version() + ": "
                    + v.status().toLowerCase(Locale.ROOT) + (m.isEmpty() ? "" : " (" + m + ")"));
            out.println("parent " + (v.parentVersion() == null ? "-" : v.parentVersion()) + " · producer "
                    + ControlText.printable(v.producer()) + " · created " + time(v.createdAtMs())
                    + " UTC · control sequence " + v.controlSequence() + " · offset " + v.offset());
            for (String r : v.rejectReasons()) {
                // An accepted snapshot's reasons are the parameters the gate held ("held: …"), not rejections.
                out.println(r.startsWith("held: ") ? ControlText.printable(r) : "rejected: " + ControlText.printable(r));
            }
            if (!v.usable()) {
                out.println("selectors cannot use it: " + ControlText.printable(v.unusable()));
            }
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"PARAMETER", "VALUE", "UNIT", "SAMPLES", "QUALITY", "STD ERROR", "WINDOW (UTC)"});
            for (Map.Entry<String, Fitted> e : v.params().entrySet()) {
                Fitted f = e.getValue();
                rows.add(new String[] {e.getKey(), num(f.value()), ParameterNames.unit(e.getKey()),
                        Long.toString(f.samples()),
                        "NONE".equals(f.qualityKind()) ? "-" : f.qualityKind() + " " + num(f.quality()),
                        f.stdError() == null ? "-" : num(f.stdError()), window(f)});
            }
            table(out, rows);
            out.println(rho(read.kept().get(version), v));
            if (v.forest() != null) {
                out.println("quantile forest: target " + ControlText.printable(v.forest().target()) + ", " + v.forest().trees() + " trees, "
                        + v.forest().leaves() + " leaves, " + v.forest().trainingRows() + " training rows"
                        + (v.forestVersion() == null || v.forestVersion() == v.version() ? ""
                                : " (published in full in version " + v.forestVersion() + ")"));
            } else if (v.forestVersion() != null) { // its carrier is no longer on the topic, or was never read
                out.println("quantile forest: the one published in full in version " + v.forestVersion());
            }
        }

        private static String rho(ParameterSnapshot full, VersionRecord v) {
            if (full == null) {
                return "rho: " + v.rhoPairs() + " (worker, tier) values";
            }
            Map<String, List<Double>> byTier = new TreeMap<>();
            Set<String> workers = new LinkedHashSet<>();
            int ownReference = 0;
            for (WorkerTierRho r : full.getRho()) {
                workers.add(r.getWorker());
                ownReference += r.getReferenceBytesPerSecond() != null ? 1 : 0;
                byTier.computeIfAbsent(r.getTier().name(), k -> new ArrayList<>()).add(r.getRho().getValue());
            }
            StringBuilder b = new StringBuilder("rho: ").append(full.getRho().size()).append(" (worker, tier) values, ")
                    .append(Plural.of(workers.size(), "worker"));
            byTier.forEach((tier, xs) -> {
                xs.sort(null);
                b.append("; ").append(tier).append(" min ").append(num(xs.get(0))).append(" median ")
                        .append(num(xs.get(xs.size() / 2))).append(" max ").append(num(xs.get(xs.size() - 1)));
            });
            if (ownReference > 0) { // their ρ is of a faster rate than BW_t: comparable with the others only as bytes/s
                b.append("; ").append(ownReference).append(" measured against their link's fastest rate, not BW_t");
            }
            return b.toString();
        }
    }

    @Command(name = "diff", mixinStandardHelpOptions = true, versionProvider = TierrouteCommand.Version.class,
            exitCodeListHeading = EXIT_HEADING,
            exitCodeList = {EXIT_0, EXIT_1_READ, EXIT_2},
            description = "Compare two versions: each fitted parameter old -> new with its relative change.")
    static final class Diff extends SnapshotsCommand.Base {
        @Parameters(index = "0", paramLabel = "A", description = "The older (base) version.")
        long a;

        @Parameters(index = "1", paramLabel = "B", description = "The newer version.")
        long b;

        @Override
        void checkArguments(CommandLine cl) {
            requireVersion(cl, "A", a);
            requireVersion(cl, "B", b);
            if (a == b) {
                throw new CommandLine.ParameterException(cl, "A and B are both version " + a + "; give two versions");
            }
        }

        @Override
        Set<Long> named() {
            return Set.of(a, b);
        }

        @Override
        void run(SnapshotsKafka kafka) {
            SnapshotsKafka.Read read = read(kafka);
            ScopeState s = scope(read.history());
            VersionRecord va = version(read, s, a);
            VersionRecord vb = version(read, s, b);
            out.println("scope " + ControlText.printable(s.scope()) + ": version " + a + " ("
                    + va.status().toLowerCase(Locale.ROOT) + ") -> "
                    + b + " (" + vb.status().toLowerCase(Locale.ROOT) + ")");
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"PARAMETER", "UNIT", "OLD (" + a + ")", "NEW (" + b + ")", "CHANGE", "SAMPLES"});
            Set<String> names = new LinkedHashSet<>(va.params().keySet());
            names.addAll(vb.params().keySet());
            for (String n : names) {
                Fitted fa = va.params().get(n);
                Fitted fb = vb.params().get(n);
                rows.add(new String[] {n, ParameterNames.unit(n), fa == null ? "-" : num(fa.value()),
                        fb == null ? "-" : num(fb.value()), change(fa, fb),
                        (fa == null ? "-" : Long.toString(fa.samples())) + " -> "
                                + (fb == null ? "-" : Long.toString(fb.samples()))});
            }
            table(out, rows);
            if (va.rhoPairs() != vb.rhoPairs()) {
                out.println("rho: " + va.rhoPairs() + " -> " + vb.rhoPairs() + " (worker, tier) values");
            }
        }

        static String change(Fitted fa, Fitted fb) {
            if (fa == null || fb == null) {
                return fa == null ? "added" : "removed";
            }
            double x = fa.value();
            double y = fb.value();
            if (x == y) {
                return "=";
            }
            if (x == 0) {
                return "from 0";
            }
            return String.format(Locale.ROOT, "%+.1f%%", 100 * (y - x) / Math.abs(x));
        }
    }
}
