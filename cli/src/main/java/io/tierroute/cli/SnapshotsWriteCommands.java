package io.tierroute.cli;

import io.tierroute.dashboards.control.ControlFence;
import io.tierroute.dashboards.control.ControlText;
import io.tierroute.dashboards.history.ScopeState;
import io.tierroute.dashboards.history.SnapshotHistory;
import io.tierroute.dashboards.history.VersionRecord;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.snapshot.ControlRecordCheck;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;

import static io.tierroute.cli.SnapshotsCommand.EXIT_0;
import static io.tierroute.cli.SnapshotsCommand.EXIT_1;
import static io.tierroute.cli.SnapshotsCommand.EXIT_2;
import static io.tierroute.cli.SnapshotsCommand.EXIT_3;
import static io.tierroute.cli.SnapshotsCommand.EXIT_HEADING;
import static io.tierroute.cli.SnapshotsText.*;

/**
 * {@code tierroute snapshots pin|unpin|rollback}: each decides its control record against the history, writes it
 * behind the scope's fence and reads back what became active.
 */
final class SnapshotsWriteCommands {

    private SnapshotsWriteCommands() {}

    /** Validates against the history, writes one control record, reads back what became active. */
    abstract static class Write extends SnapshotsCommand.Base {
        @Mixin
        SnapshotsCommand.Who who;

        /** The record to write, or a {@link SnapshotsKafka.Failure} saying why not. */
        abstract Target target(SnapshotsKafka.Read read, ScopeState s);

        /**
         * The scope as readers see it once they see control sequence {@code sequence}: a committed read stops at the
         * partition's last stable offset, which can lag a commit that has just returned (the commit marker is written
         * after it), so the first read may not hold the record yet, nor while another writer's transaction is open
         * before it on the control topic (a fence's, at most {@link ControlFence#TRANSACTION_TIMEOUT}). Gives up after
         * {@code wait} ({@link #READ_BACK}) with what it read.
         *
         * @throws SnapshotsKafka.Failure when the read fails, or finds the scope gone
         */
        static ScopeState readBack(SnapshotsKafka kafka, String scope, long sequence, Duration wait) {
            long deadline = System.nanoTime() + wait.toNanos();
            while (true) {
                // Gone only if its records were deleted meanwhile: our record stands all the same (confirm says so).
                ScopeState now = kafka.read(scope, Set.of()).history().scope(scope).orElseThrow(() ->
                        new SnapshotsKafka.Failure("scope '" + ControlText.printable(scope) + "' is no longer on the topics"));
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

        /** How long a write waits to see its record: longer than a killed writer's transaction can stay open. */
        static final Duration READ_BACK = ControlFence.TRANSACTION_TIMEOUT.plusSeconds(5);

        record Target(ControlAction action, long version, String what) {}

        @Override
        final void run(SnapshotsKafka kafka) {
            who.check(spec.commandLine());
            SnapshotsKafka.Read first = read(kafka);
            ScopeState firstState = scope(first.history());
            sequenceLeft(firstState, first.history().nextControlSequence(firstState.scope()));
            target(first, firstState); // a write the history rules out is refused before it fences anyone
            String scopeName = firstState.scope();
            ScopeState s;
            Target t;
            SnapshotControl c;
            long sequence;
            // Read and decide behind the fence: no other writer of the scope can commit in between.
            try (SnapshotsKafka.Fence fence = kafka.fence(scopeName)) {
                long committed = fence.lastSequence(scopeName);
                // A trim's deletions behind an open job transaction are waited for; the open transaction alone is not.
                boolean deletionsPending = fence.paramsEnds(scopeName).scopeDeletionsPending();
                SnapshotsKafka.Read read = kafka.read(scopeName, named(), deletionsPending);
                s = scope(read.history());
                if (s.controlSequence() != committed) { // the read stops at the committed end, which is past it now
                    throw new SnapshotsKafka.Failure("the history read ends at control sequence " + s.controlSequence()
                            + " of scope '" + scopeName + "', the topic holds " + committed + ". Nothing was written; "
                            + "retry");
                }
                // Above the last record, and above a snapshot's stamp when the control topic lost records the job
                // applied (recreated): the job would ignore a lower one while every reader applied it.
                sequence = read.history().nextControlSequence(scopeName);
                sequenceLeft(s, sequence);
                t = target(read, s);
                c = SnapshotControl.newBuilder().setScope(s.scope()).setAction(t.action())
                        .setVersion(t.version()).setActor(kafka.recordedActor(who.actor.strip()))
                        .setReason(who.reason.strip()).setTimestampMs(System.currentTimeMillis()).setSequence(sequence)
                        .build();
                fence.commit(c);
            }
            ScopeState now = confirm(kafka, s.scope(), sequence, t, c, READ_BACK);
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
            out.println(outcome(s, now));
        }

        /**
         * Refuses a write whose sequence {@code next} would pass {@link ControlRecordCheck#MAX_SEQUENCE}: every reader
         * ignores such a record, so the write would land and never take effect.
         */
        private static void sequenceLeft(ScopeState s, long next) {
            if (next > ControlRecordCheck.MAX_SEQUENCE) {
                throw new SnapshotsKafka.Failure("refused: the control sequence of scope '" + s.scope() + "' is "
                        + "exhausted (its last control record or snapshot stamp has sequence " + (next - 1) + ", the "
                        + "largest readers take, 2^62: a later one would be ignored by every reader). Nothing was "
                        + "written.");
            }
        }

        /**
         * The scope once readers see our committed record ({@link #readBack}). A read that fails, or that still ends
         * below our sequence when it gives up (another writer's open transaction holds back the committed end of the
         * control topic, up to the fence's transaction timeout), is no refusal: the record is written and stands.
         */
        static ScopeState confirm(SnapshotsKafka kafka, String scope, long sequence, Target t, SnapshotControl c,
                                  Duration wait) {
            String written = t.what() + " was written as control sequence " + sequence + " by " + c.getActor() + " ("
                    + c.getReason() + "), but ";
            String advice = "; it stands: do not repeat the command, check 'tierroute snapshots list'";
            ScopeState now;
            try {
                now = readBack(kafka, scope, sequence, wait);
            } catch (SnapshotsKafka.Failure e) {
                throw new SnapshotsKafka.Unconfirmed(written + "what became active could not be read back ("
                        + e.getMessage() + ")" + advice);
            }
            if (now.controlSequence() < sequence) {
                throw new SnapshotsKafka.Unconfirmed(written + "readers did not see it within " + wait.toSeconds()
                        + " s (the control topic's committed end is at sequence " + now.controlSequence() + " of the "
                        + "scope: a transaction left open before it holds it back)" + advice);
            }
            return now;
        }

        /**
         * What became active, from the scope before the write and after it: {@code scope S: active version 3 -> 2,
         * pinned to 2}, or, when the active version did not change, that it stays and why (an unpin leaves the pinned
         * version active until the fitting job publishes an accepted snapshot after seeing the unpin).
         */
        private static String outcome(ScopeState before, ScopeState now) {
            String scope = "scope " + now.scope() + ": ";
            if (!Objects.equals(before.activeVersion(), now.activeVersion())) {
                return scope + "active version " + active(before) + " -> " + active(now)
                        + (now.pinned() ? ", pinned to " + now.pinnedVersion() : ", not pinned");
            }
            if (now.pinned()) {
                return scope + "version " + active(now) + " stays active, now pinned to " + now.pinnedVersion();
            }
            return scope + "unpinned; version " + active(now) + " stays active until the fitting job publishes an "
                    + "accepted snapshot after seeing the unpin";
        }

        private static String active(ScopeState s) {
            return s.activeVersion() == null ? "none" : s.activeVersion().toString();
        }
    }

    @Command(name = "pin", mixinStandardHelpOptions = true, versionProvider = TierrouteCommand.Version.class,
            exitCodeListHeading = EXIT_HEADING,
            exitCodeList = {EXIT_0, EXIT_1, EXIT_2, EXIT_3},
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
        Set<Long> named() {
            return Set.of(version);
        }

        @Override
        Target target(SnapshotsKafka.Read read, ScopeState s) {
            VersionRecord v = version(read, s, version);
            if (v.rejected()) {
                throw new SnapshotsKafka.Failure("refused: version " + version + " of scope '" + s.scope()
                        + "' was REJECTED by the validation gate (" + ControlText.printable(String.join("; ",
                        v.rejectReasons())) + ") and can never be active. Nothing was written.");
            }
            if (!v.accepted()) {
                throw new SnapshotsKafka.Failure("refused: version " + version + " of scope '" + s.scope()
                        + "' is " + v.status() + "; only ACCEPTED versions can be pinned. Nothing was written.");
            }
            if (!v.usable()) {
                throw new SnapshotsKafka.Failure("refused: version " + version + " of scope '" + s.scope()
                        + "' cannot be used by selectors (" + ControlText.printable(v.unusable()) + "); pinned, they "
                        + "would keep serving the version they serve now. Nothing was written.");
            }
            if (s.pinned() && s.pinnedVersion() != null && s.pinnedVersion() == version) {
                throw new SnapshotsKafka.Failure("refused: scope '" + s.scope() + "' is already pinned to version "
                        + version + ". Nothing was written.");
            }
            return new Target(ControlAction.PIN, version, "pin of scope '" + s.scope() + "' to version " + version);
        }
    }

    @Command(name = "unpin", mixinStandardHelpOptions = true, versionProvider = TierrouteCommand.Version.class,
            exitCodeListHeading = EXIT_HEADING,
            exitCodeList = {EXIT_0, EXIT_1, EXIT_2, EXIT_3},
            description = {"Unpin the scope: the pinned version stays active until the fitting job publishes an "
                    + "accepted snapshot after seeing the unpin.",
                    "Needs the operator's credentials where the deployment configures them (see 'snapshots --help')."})
    static final class Unpin extends Write {
        @Override
        Target target(SnapshotsKafka.Read read, ScopeState s) {
            if (!s.pinned()) {
                throw new SnapshotsKafka.Failure("refused: scope '" + s.scope() + "' is not pinned. Nothing was "
                        + "written.");
            }
            return new Target(ControlAction.UNPIN, s.pinnedVersion(), "unpin of scope '" + s.scope()
                    + "' (was pinned to " + s.pinnedVersion() + ")");
        }
    }

    @Command(name = "rollback", mixinStandardHelpOptions = true, versionProvider = TierrouteCommand.Version.class,
            exitCodeListHeading = EXIT_HEADING,
            exitCodeList = {EXIT_0, EXIT_1, EXIT_2, EXIT_3},
            description = {"Roll back: pin the scope to the version that was active before the active one (older "
                    + "than it and ACCEPTED), never to a version an operator rolled back from: after a rollback, an "
                    + "unpin and a newer fit, it goes back to the version rolled back to, not to the bad one. Where the "
                    + "control records that tell are gone, the newest ACCEPTED version below the active one that was "
                    + "not rolled back from. Rolling back again goes further back.",
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
        Set<Long> named() {
            return from == null ? Set.of() : Set.of(from);
        }

        @Override
        Target target(SnapshotsKafka.Read read, ScopeState s) {
            SnapshotHistory h = read.history();
            if (s.activeVersion() == null) {
                throw new SnapshotsKafka.Failure("refused: scope '" + s.scope() + "' has no active version to roll "
                        + "back from. Nothing was written.");
            }
            if (from != null && !from.equals(s.activeVersion())) {
                throw new SnapshotsKafka.Failure("refused: version " + s.activeVersion() + " of scope '" + s.scope()
                        + "' is active, not --from " + from + (h.version(s.scope(), from).isPresent()
                        ? " (rolled back or pinned meanwhile?)" : "; the scope has no version " + from)
                        + ". Nothing was written.");
            }
            OptionalLong prev = h.servableRollbackTarget(s.scope());
            if (prev.isEmpty()) {
                throw new SnapshotsKafka.Failure("refused: scope '" + s.scope() + "' has no accepted version below "
                        + "the active version " + s.activeVersion() + " that selectors can use and was not rolled back "
                        + "from. Nothing was written.");
            }
            return new Target(ControlAction.PIN, prev.getAsLong(), "rollback of scope '" + s.scope() + "' from "
                    + s.activeVersion() + " to version " + prev.getAsLong());
        }
    }
}
