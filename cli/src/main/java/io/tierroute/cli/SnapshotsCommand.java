package io.tierroute.cli;

import io.tierroute.dashboards.control.ControlText;
import io.tierroute.dashboards.history.Fitted;
import io.tierroute.dashboards.history.ParameterNames;
import io.tierroute.dashboards.history.ScopeState;
import io.tierroute.dashboards.history.SnapshotHistory;
import io.tierroute.dashboards.history.VersionRecord;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.WorkerTierRho;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code tierroute snapshots list|show|diff|pin|unpin|rollback}: the operator's view of the snapshot
 * history ({@code tierroute.params}) and pins ({@code tierroute.control}), through the dashboards'
 * {@link SnapshotHistory} and the one {@link io.tierroute.schemas.snapshot.ActivationRule}.
 */
@Command(name = "snapshots",
        mixinStandardHelpOptions = true,
        versionProvider = TierrouteCommand.Version.class,
        description = {"Inspect fitted parameter snapshots and pin / unpin / roll back a scope.",
                "Reads tierroute.params and tierroute.control from the beginning, decides the active version with "
                        + "the same ActivationRule as the fitting job, the selectors and the dashboard, and writes "
                        + "PIN / UNPIN records (with actor, reason and sequence) to tierroute.control.", ""},
        subcommands = {SnapshotsCommand.ListCmd.class, SnapshotsCommand.Show.class, SnapshotsCommand.Diff.class,
                SnapshotsCommand.Pin.class, SnapshotsCommand.Unpin.class, SnapshotsCommand.Rollback.class},
        commandListHeading = "%nCommands:%n",
        synopsisSubcommandLabel = "COMMAND",
        footerHeading = "%nCredentials:%n",
        footer = {"Pin, unpin and rollback write tierroute.control. A deployment that configures authentication "
                + "and ACLs lets only the operator's principal do that; pass its client settings with "
                + "--command-config FILE (a full one: examples/kafka-client-sasl-ssl.properties), e.g.",
                // Short lines: an 84-column JAAS line wrapped at 80 put 'required \' on a line of its own,
                // and the pasted file then had no valid sasl.jaas.config.
                "  security.protocol=SASL_PLAINTEXT",
                "  sasl.mechanism=PLAIN",
                "  sasl.jaas.config=\\",
                "    org.apache.kafka.common.security.plain.PlainLoginModule required \\",
                "    username=\"operator\" password=\"...\";",
                "ACL recipe (kafka-acls.sh, StandardAuthorizer, allow.everyone.if.no.acl.found=false):",
                "  operator: WRITE, DESCRIBE on topic tierroute.control; READ, DESCRIBE on tierroute.params and "
                        + "tierroute.control; WRITE, DESCRIBE on transactional ids with the prefix tierroute-control- "
                        + "(a write fences the scope's other writers)",
                "  readers (list, show, diff, the dashboard): READ, DESCRIBE on both topics only",
                "Without the operator's credentials a write is refused by the broker and nothing is written "
                        + "(see deploy/README.md)."})
final class SnapshotsCommand implements Runnable {

    static final int REFUSED = 1;
    static final String EXIT_HEADING = "%nExit codes:%n";
    static final String EXIT_0 = "0:done";
    static final String EXIT_1 = "1:refused (an unknown scope or version, a write the history rules out, the broker "
            + "unreachable or refusing the client)";
    static final String EXIT_2 = "2:bad command line";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a snapshots command is required");
    }

    // ---- shared options ----

    /** Where and as whom to connect, and the scope. */
    static final class Connection {
        @Option(names = {"-b", "--bootstrap"}, required = true, paramLabel = "HOST:PORT",
                description = "Kafka bootstrap servers (HOST:PORT[,HOST:PORT...]).")
        String bootstrap;

        @Option(names = {"-s", "--scope"}, paramLabel = "S", defaultValue = "default",
                description = "The scope (default: ${DEFAULT-VALUE}).")
        String scope;

        @Option(names = {"--command-config"}, paramLabel = "FILE",
                description = "Kafka client properties for the consumer and producer (security.protocol, "
                        + "sasl.mechanism, sasl.jaas.config, ssl.* ...), as for Kafka's own tools.")
        Path commandConfig;

        /** An hour: Kafka's clients take their timeouts in int milliseconds, and no broker answers later. */
        static final int MAX_TIMEOUT_SECONDS = 3600;

        @Option(names = {"--timeout"}, paramLabel = "SECONDS", defaultValue = "15",
                description = "How long to wait for the broker, 1–3600 (default: ${DEFAULT-VALUE} s).")
        int timeoutSeconds;

        SnapshotsKafka kafka(CommandLine cl) {
            BootstrapAddress.require(bootstrap, "--bootstrap", cl);
            if (timeoutSeconds < 1 || timeoutSeconds > MAX_TIMEOUT_SECONDS) {
                throw new CommandLine.ParameterException(cl, "--timeout must be in [1, " + MAX_TIMEOUT_SECONDS
                        + "] s, got " + timeoutSeconds);
            }
            Properties props = KafkaClientConfig.load(commandConfig, cl);
            // The CLI reports broker problems itself; the clients' own logs only repeat them.
            if (System.getProperty("org.slf4j.simpleLogger.log.org.apache.kafka") == null) {
                System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "off");
            }
            return new SnapshotsKafka(bootstrap, props, Duration.ofSeconds(timeoutSeconds));
        }
    }

    /** Who writes and why. */
    static final class Who {
        @Option(names = {"--actor"}, paramLabel = "NAME", defaultValue = "${sys:user.name}",
                description = "Who acts, recorded with the control record (default: the OS user, ${DEFAULT-VALUE}); "
                        + "on a SASL connection the authenticated principal is recorded next to it, e.g. "
                        + "'oncall (User:operator)'.")
        String actor;

        @Option(names = {"--reason"}, required = true, paramLabel = "TEXT",
                description = "Why (required; recorded and shown on the dashboards).")
        String reason;

        void check(CommandLine cl) {
            if (actor == null || actor.isBlank()) {
                throw new CommandLine.ParameterException(cl, "--actor must name who acts");
            }
            if (reason.isBlank()) {
                throw new CommandLine.ParameterException(cl, "--reason must say why");
            }
            if (actor.length() > 500 || reason.length() > 500) {
                throw new CommandLine.ParameterException(cl, "--actor and --reason are limited to 500 characters");
            }
            if (ControlText.hasControlCharacter(actor) || ControlText.hasControlCharacter(reason)) {
                throw new CommandLine.ParameterException(cl, "--actor and --reason must be one line of printable text "
                        + "(no newline, tab or escape): they are printed to other operators' terminals");
            }
        }
    }

    /** The common run: connect, read, act; refusals print one line on stderr and exit 1. */
    abstract static class Base implements Callable<Integer> {
        @Mixin
        Connection conn;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        PrintWriter out;

        @Override
        public final Integer call() {
            CommandLine cl = spec.commandLine();
            out = cl.getOut();
            PrintWriter err = cl.getErr();
            checkArguments(cl);
            SnapshotsKafka kafka = conn.kafka(cl);
            try {
                run(kafka);
                out.flush();
                return 0;
            } catch (SnapshotsKafka.Failure e) {
                out.flush();
                err.println("tierroute snapshots " + spec.name() + ": " + e.getMessage());
                err.flush();
                return REFUSED;
            }
        }

        abstract void run(SnapshotsKafka kafka);

        /** The subcommand's own arguments, checked before the broker is asked anything. */
        void checkArguments(CommandLine cl) {}

        static void requireVersion(CommandLine cl, String name, long v) {
            if (v < 1) {
                throw new CommandLine.ParameterException(cl, name + " must be a version ≥ 1, got " + v);
            }
        }

        ScopeState scope(SnapshotHistory h) {
            return h.scope(conn.scope).orElseThrow(() -> new SnapshotsKafka.Failure("unknown scope '" + conn.scope
                    + "'; known scopes: " + (h.scopes().isEmpty() ? "none (no snapshot published yet)" : h.scopes())));
        }

        VersionRecord version(SnapshotHistory h, ScopeState s, long v) {
            return h.version(s.scope(), v).orElseThrow(() -> new SnapshotsKafka.Failure("unknown version " + v
                    + " of scope '" + s.scope() + "': not on " + Topics.PARAMS + " (it holds "
                    + range(s.versions()) + ")"));
        }
    }

    // ---- read commands ----

    @Command(name = "list", mixinStandardHelpOptions = true, exitCodeListHeading = EXIT_HEADING,
            exitCodeList = {EXIT_0, EXIT_1, EXIT_2},
            description = "List the versions of a scope, newest first, with status (accepted / rejected + reason), "
                    + "the active and pinned markers and the pin's actor and reason.")
    static final class ListCmd extends Base {
        @Option(names = {"-n", "--limit"}, paramLabel = "N", defaultValue = "20",
                description = "Show the newest N versions (default: ${DEFAULT-VALUE}; 0: all).")
        int limit;

        @Override
        void checkArguments(CommandLine cl) {
            if (limit < 0) {
                throw new CommandLine.ParameterException(cl, "--limit must be ≥ 0 (0: all), got " + limit);
            }
        }

        @Override
        void run(SnapshotsKafka kafka) {
            SnapshotHistory h = kafka.read(null, -1).history();
            ScopeState s = scope(h);
            out.println(header(s));
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"VERSION", "STATUS", "MARKERS", "PARENT", "CREATED (UTC)", "PRODUCER", "REASON"});
            List<VersionRecord> vs = new ArrayList<>(s.versions());
            java.util.Collections.reverse(vs);
            int shown = limit <= 0 ? vs.size() : Math.min(limit, vs.size());
            for (VersionRecord v : vs.subList(0, shown)) {
                rows.add(new String[] {Long.toString(v.version()), v.status().toLowerCase(Locale.ROOT), markers(s, v),
                        v.parentVersion() == null ? "-" : v.parentVersion().toString(), time(v.createdAtMs()),
                        v.producer(), abridged(String.join("; ", v.rejectReasons()), v.version())});
            }
            table(out, rows);
            if (shown < vs.size()) {
                out.println("(" + (vs.size() - shown) + " older versions not shown; --limit 0 shows all)");
            }
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, exitCodeListHeading = EXIT_HEADING,
            exitCodeList = {EXIT_0, EXIT_1, EXIT_2},
            description = "Show one snapshot: status, every fitted parameter with unit, value, samples, quality, "
                    + "standard error and event-time window, and a summary of its per-worker rho.")
    static final class Show extends Base {
        @Parameters(index = "0", paramLabel = "VERSION", description = "The version.")
        long version;

        @Override
        void checkArguments(CommandLine cl) {
            requireVersion(cl, "VERSION", version);
        }

        @Override
        void run(SnapshotsKafka kafka) {
            SnapshotsKafka.Read read = kafka.read(conn.scope, version);
            SnapshotHistory h = read.history();
            ScopeState s = scope(h);
            VersionRecord v = version(h, s, version);
            String m = markers(s, v);
            out.println("scope " + s.scope() + ", version " + v.version() + ": " + v.status().toLowerCase(Locale.ROOT)
                    + (m.isEmpty() ? "" : " (" + m + ")"));
            out.println("parent " + (v.parentVersion() == null ? "-" : v.parentVersion()) + " · producer "
                    + v.producer() + " · created " + time(v.createdAtMs()) + " UTC · control sequence "
                    + v.controlSequence() + " · offset " + v.offset());
            for (String r : v.rejectReasons()) {
                // An accepted snapshot's reasons are the parameters the gate held ("held: …"), not rejections.
                out.println(r.startsWith("held: ") ? r : "rejected: " + r);
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
            out.println(rho(read.kept(), v));
            if (v.forest() != null) {
                out.println("quantile forest: target " + v.forest().target() + ", " + v.forest().trees() + " trees, "
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
            for (WorkerTierRho r : full.getRho()) {
                workers.add(r.getWorker());
                byTier.computeIfAbsent(r.getTier().name(), k -> new ArrayList<>()).add(r.getRho().getValue());
            }
            StringBuilder b = new StringBuilder("rho: ").append(full.getRho().size()).append(" (worker, tier) values, ")
                    .append(workers.size()).append(" workers");
            byTier.forEach((tier, xs) -> {
                xs.sort(null);
                b.append("; ").append(tier).append(" min ").append(num(xs.get(0))).append(" median ")
                        .append(num(xs.get(xs.size() / 2))).append(" max ").append(num(xs.get(xs.size() - 1)));
            });
            return b.toString();
        }
    }

    @Command(name = "diff", mixinStandardHelpOptions = true, exitCodeListHeading = EXIT_HEADING,
            exitCodeList = {EXIT_0, EXIT_1, EXIT_2},
            description = "Compare two versions: each fitted parameter old -> new with its relative change.")
    static final class Diff extends Base {
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
        void run(SnapshotsKafka kafka) {
            SnapshotHistory h = kafka.read(null, -1).history();
            ScopeState s = scope(h);
            VersionRecord va = version(h, s, a);
            VersionRecord vb = version(h, s, b);
            out.println("scope " + s.scope() + ": version " + a + " (" + va.status().toLowerCase(Locale.ROOT) + ") -> "
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

    // ---- write commands ----

    /** Validates against the history, writes one control record, reads back what became active. */
    abstract static class Write extends Base {
        @Mixin
        Who who;

        /** The record to write, or a {@link SnapshotsKafka.Failure} saying why not. */
        abstract Target target(SnapshotHistory h, ScopeState s);

        /**
         * The scope as readers see it once they see control sequence {@code sequence}: a committed read stops at the
         * partition's last stable offset, which can lag a commit that has just returned (the commit marker is written
         * after it), so the first read may not hold the record yet. Gives up after 10 s with what it read.
         */
        static ScopeState readBack(SnapshotsKafka kafka, String scope, long sequence) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (true) {
                ScopeState now = kafka.read(null, -1).history().scope(scope).orElseThrow();
                if (now.controlSequence() >= sequence || System.nanoTime() > deadline) {
                    return now;
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return now;
                }
            }
        }

        record Target(ControlAction action, long version, String what) {}

        @Override
        final void run(SnapshotsKafka kafka) {
            who.check(spec.commandLine());
            SnapshotHistory first = kafka.read(null, -1).history();
            ScopeState firstState = scope(first);
            target(first, firstState); // a write the history rules out is refused before it fences anyone
            String scopeName = firstState.scope();
            ScopeState s;
            Target t;
            SnapshotControl c;
            long sequence;
            // Read and decide behind the fence: no other writer of the scope can commit in between.
            try (SnapshotsKafka.Fence fence = kafka.fence(scopeName)) {
                long committed = fence.lastSequence(scopeName);
                SnapshotHistory h = kafka.read(null, -1).history();
                s = scope(h);
                if (s.controlSequence() != committed) { // the read stops at the committed end, which is past it now
                    throw new SnapshotsKafka.Failure("the history read ends at control sequence " + s.controlSequence()
                            + " of scope '" + scopeName + "', the topic holds " + committed + ". Nothing was written; "
                            + "retry");
                }
                t = target(h, s);
                sequence = s.controlSequence() + 1;
                c = SnapshotControl.newBuilder().setScope(s.scope()).setAction(t.action())
                        .setVersion(t.version()).setActor(kafka.recordedActor(who.actor.strip()))
                        .setReason(who.reason.strip()).setTimestampMs(System.currentTimeMillis()).setSequence(sequence)
                        .build();
                fence.commit(c);
            }
            ScopeState now = readBack(kafka, s.scope(), sequence);
            // A safety net behind the fence (a writer older than it would not be fenced): the record with our
            // sequence is ours, even when a later write came after it.
            boolean ours = now.controls().stream().filter(e -> e.sequence() == sequence).findFirst()
                    .map(e -> e.actor().equals(c.getActor()) && e.reason().equals(c.getReason())).orElse(false);
            if (!ours) {
                throw new SnapshotsKafka.Failure("wrote " + t.what() + " as control sequence " + sequence
                        + ", but another control record took that sequence first (" + describe(now)
                        + "); check 'tierroute snapshots list' and retry");
            }
            out.println(t.what() + ": written as control sequence " + sequence + " by " + c.getActor() + " ("
                    + c.getReason() + ")");
            out.println("scope " + s.scope() + ": active version " + active(s) + " -> " + active(now)
                    + (now.pinned() ? ", pinned to " + now.pinnedVersion() : ", not pinned"));
        }

        private static String active(ScopeState s) {
            return s.activeVersion() == null ? "none" : s.activeVersion().toString();
        }
    }

    @Command(name = "pin", mixinStandardHelpOptions = true, exitCodeListHeading = EXIT_HEADING,
            exitCodeList = {EXIT_0, EXIT_1, EXIT_2},
            description = {"Pin the scope to an ACCEPTED version: it stays active, and fitted snapshots are recorded "
                    + "but not activated, until an unpin. A rejected or unknown version is refused.",
                    "Needs the operator's credentials where the deployment configures them (see 'snapshots --help')."})
    static final class Pin extends Write {
        @Parameters(index = "0", paramLabel = "VERSION", description = "The version to pin.")
        long version;

        @Override
        void checkArguments(CommandLine cl) {
            requireVersion(cl, "VERSION", version);
        }

        @Override
        Target target(SnapshotHistory h, ScopeState s) {
            VersionRecord v = version(h, s, version);
            if (v.rejected()) {
                throw new SnapshotsKafka.Failure("refused: version " + version + " of scope '" + s.scope()
                        + "' was REJECTED by the validation gate (" + String.join("; ", v.rejectReasons())
                        + ") and can never be active. Nothing was written.");
            }
            if (!v.accepted()) {
                throw new SnapshotsKafka.Failure("refused: version " + version + " of scope '" + s.scope()
                        + "' is " + v.status() + "; only ACCEPTED versions can be pinned. Nothing was written.");
            }
            if (s.pinned() && s.pinnedVersion() != null && s.pinnedVersion() == version) {
                throw new SnapshotsKafka.Failure("refused: scope '" + s.scope() + "' is already pinned to version "
                        + version + ". Nothing was written.");
            }
            return new Target(ControlAction.PIN, version, "pin of scope '" + s.scope() + "' to version " + version);
        }
    }

    @Command(name = "unpin", mixinStandardHelpOptions = true, exitCodeListHeading = EXIT_HEADING,
            exitCodeList = {EXIT_0, EXIT_1, EXIT_2},
            description = {"Unpin the scope: the pinned version stays active until the fitting job publishes an "
                    + "accepted snapshot after seeing the unpin.",
                    "Needs the operator's credentials where the deployment configures them (see 'snapshots --help')."})
    static final class Unpin extends Write {
        @Override
        Target target(SnapshotHistory h, ScopeState s) {
            if (!s.pinned()) {
                throw new SnapshotsKafka.Failure("refused: scope '" + s.scope() + "' is not pinned. Nothing was "
                        + "written.");
            }
            return new Target(ControlAction.UNPIN, s.pinnedVersion(), "unpin of scope '" + s.scope()
                    + "' (was pinned to " + s.pinnedVersion() + ")");
        }
    }

    @Command(name = "rollback", mixinStandardHelpOptions = true, exitCodeListHeading = EXIT_HEADING,
            exitCodeList = {EXIT_0, EXIT_1, EXIT_2},
            description = {"Roll back: pin the scope to the newest ACCEPTED version below the active one.",
                    "Needs the operator's credentials where the deployment configures them (see 'snapshots --help')."})
    static final class Rollback extends Write {
        @Option(names = "--from", paramLabel = "VERSION",
                description = "Roll back only if VERSION is still the active one (the version you saw is bad): when "
                        + "another operator rolled back or pinned meanwhile, the command is refused instead of "
                        + "rolling back a second time.")
        Long from;

        @Override
        void checkArguments(CommandLine cl) {
            if (from != null) {
                requireVersion(cl, "--from", from);
            }
        }

        @Override
        Target target(SnapshotHistory h, ScopeState s) {
            if (s.activeVersion() == null) {
                throw new SnapshotsKafka.Failure("refused: scope '" + s.scope() + "' has no active version to roll "
                        + "back from. Nothing was written.");
            }
            if (from != null && !from.equals(s.activeVersion())) {
                throw new SnapshotsKafka.Failure("refused: version " + s.activeVersion() + " of scope '" + s.scope()
                        + "' is active, not --from " + from + " (rolled back or pinned meanwhile?). Nothing was written.");
            }
            OptionalLong prev = h.previousAccepted(s.scope(), s.activeVersion());
            if (prev.isEmpty()) {
                throw new SnapshotsKafka.Failure("refused: scope '" + s.scope() + "' has no accepted version below "
                        + "the active version " + s.activeVersion() + ". Nothing was written.");
            }
            return new Target(ControlAction.PIN, prev.getAsLong(), "rollback of scope '" + s.scope() + "' from "
                    + s.activeVersion() + " to version " + prev.getAsLong());
        }
    }

    // ---- formatting ----

    static String header(ScopeState s) {
        return "scope " + s.scope() + ": " + s.versions().size() + " versions (" + range(s.versions())
                + "), active " + (s.activeVersion() == null ? "none" : s.activeVersion()) + ", " + describe(s);
    }

    static String describe(ScopeState s) {
        Optional<ScopeState.ControlEntry> last = s.controls().stream().findFirst();
        String pin = s.pinned() ? "pinned to " + s.pinnedVersion() : "not pinned";
        return last.map(c -> pin + " (last control: " + c.action() + (c.version() == null ? "" : " " + c.version())
                + " by " + ControlText.printable(c.actor()) + " at " + time(c.timestampMs()) + " UTC, sequence "
                + c.sequence() + ": \"" + ControlText.printable(c.reason()) + "\")").orElse(pin);
    }

    static String range(List<VersionRecord> vs) {
        return vs.isEmpty() ? "no versions" : "versions " + vs.get(0).version() + ".." + vs.get(vs.size() - 1).version();
    }

    static String markers(ScopeState s, VersionRecord v) {
        List<String> m = new ArrayList<>();
        if (s.activeVersion() != null && s.activeVersion() == v.version()) {
            m.add("active");
        }
        if (s.pinned() && s.pinnedVersion() != null && s.pinnedVersion() == v.version()) {
            m.add("pinned");
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
