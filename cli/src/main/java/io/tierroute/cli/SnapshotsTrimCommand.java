package io.tierroute.cli;

import io.tierroute.schemas.Topics;
import io.tierroute.schemas.snapshot.SnapshotRetention;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

import static io.tierroute.cli.SnapshotsCommand.EXIT_0;
import static io.tierroute.cli.SnapshotsCommand.EXIT_1;
import static io.tierroute.cli.SnapshotsCommand.EXIT_2;
import static io.tierroute.cli.SnapshotsCommand.EXIT_HEADING;

/**
 * {@code tierroute snapshots trim}: deletes old versions from {@code tierroute.params}, which otherwise keeps every
 * version (one key each; ~86,000 a day per scope at the fitting job's 1 s cadence) and which every selector re-reads
 * at start. What goes is decided by {@link SnapshotRetention} from the whole history; the deletions are tombstones
 * committed behind the scope's control fence, so no pin, unpin or rollback can commit between the read and them.
 */
@Command(name = "trim", mixinStandardHelpOptions = true, versionProvider = TierrouteCommand.Version.class,
        exitCodeListHeading = EXIT_HEADING,
        exitCodeList = {EXIT_0, EXIT_1, EXIT_2},
        description = {"Delete old versions of a scope from tierroute.params (tombstones; the broker's compaction then "
                + "drops them). Keeps the newest --keep versions and, older than those, every version a reader still "
                + "needs: the active one, the one the last pin or unpin names, the rollback target (the version active "
                + "before the active one, as 'snapshots rollback' picks it), the versions an operator rolled back from, "
                + "and the records carrying the forests of every kept version.",
                "Only the active version's rollback target is held: after a trim, a second rollback goes to the version "
                        + "active before it that is still on the topic (else the newest accepted one below it). A scope "
                        + "with a record this CLI cannot decode is not trimmed.",
                "Run it from cron (deploy/k8s has a CronJob): the fitting job publishes a version every second by "
                        + "default. Needs WRITE on tierroute.params and on the scope's control transactional id (see "
                        + "'snapshots --help')."})
final class SnapshotsTrimCommand extends SnapshotsCommand.Base {


    @Option(names = "--keep", paramLabel = "N", defaultValue = "10000",
            description = "Versions to keep per scope, newest first (at least 1000, DESIGN.md §5; default: "
                    + "${DEFAULT-VALUE}, what the dashboard and 'snapshots list' read).")
    long keep;

    @Option(names = "--all-scopes", description = "Trim every scope on the topic instead of one (not with --scope).")
    boolean allScopes;

    @Option(names = "--dry-run", description = "Print what would be deleted and delete nothing.")
    boolean dryRun;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "20000",
            description = "Tombstones per transaction (default: ${DEFAULT-VALUE}); each must commit within the "
                    + "fence's 15 s transaction timeout, so lower it on a slow link.")
    int batch;

    @Override
    void checkArguments(CommandLine cl) {
        if (allScopes && cl.getParseResult().hasMatchedOption("--scope")) { // else --scope would be silently ignored
            throw new CommandLine.ParameterException(cl, "give --scope or --all-scopes, not both");
        }
        if (batch < 1) {
            throw new CommandLine.ParameterException(cl, "--batch must be at least 1, got " + batch);
        }
        if (keep < SnapshotRetention.MIN_KEEP) {
            throw new CommandLine.ParameterException(cl, "--keep must be at least " + SnapshotRetention.MIN_KEEP
                    + " (DESIGN.md §5: the last 1000 versions stay readable for dashboards and rollback), got " + keep);
        }
    }

    @Override
    void run(SnapshotsKafka kafka) {
        SnapshotsKafka.Versions first = kafka.readVersions();
        List<String> scopes = new ArrayList<>();
        if (allScopes) {
            scopes.addAll(new TreeMap<>(first.scopes()).keySet());
            if (scopes.isEmpty()) {
                out.println("no snapshot on " + Topics.PARAMS + " yet: nothing to trim");
            }
        } else if (first.scopes().containsKey(conn.scope)) {
            scopes.add(conn.scope);
        } else {
            throw new SnapshotsKafka.Failure("unknown scope '" + conn.scope + "'; scopes on " + Topics.PARAMS + ": "
                    + (first.scopes().isEmpty() ? "none (no snapshot published yet)" : new TreeMap<>(first.scopes()).keySet()));
        }
        // One scope's refusal does not starve the others (the CronJob trims them all): each is tried, then reported.
        List<String> failed = new ArrayList<>();
        for (String scope : scopes) {
            try {
                trim(kafka, first, scope);
            } catch (SnapshotsKafka.Failure e) {
                if (scopes.size() == 1) {
                    throw e;
                }
                err().println("tierroute snapshots trim: scope " + scope + ": " + e.getMessage());
                failed.add(scope);
            }
        }
        if (!failed.isEmpty()) {
            throw new SnapshotsKafka.Failure("scope(s) " + failed + " not trimmed (above); the others were");
        }
    }

    private java.io.PrintWriter err() {
        return spec.commandLine().getErr();
    }

    private void trim(SnapshotsKafka kafka, SnapshotsKafka.Versions first, String scope) {
        refuseUndecodable(first, scope);
        SnapshotRetention.Plan unfenced = plan(first, scope);
        if (dryRun || unfenced.deleted().isEmpty()) {
            // Nothing to delete needs no fence: an operator's pin in flight is not fenced by an hourly run.
            describe(unfenced, versionsOf(first, scope).size());
            out.println(dryRun ? "dry run: nothing deleted" : "scope " + scope + ": nothing to delete");
            return;
        }
        // Read and decide behind the fence: no pin, unpin or rollback of the scope can commit until the deletions have.
        try (SnapshotsKafka.Fence fence = kafka.fence(scope)) {
            long committed = fence.lastSequence(scope);
            SnapshotsKafka.Versions v = kafka.readVersions();
            if (v.rule().controlSequence(scope) != committed) {
                throw new SnapshotsKafka.Failure("the history read ends at control sequence "
                        + v.rule().controlSequence(scope) + " of scope '" + scope + "', the topic holds " + committed
                        + ". Nothing was deleted; retry");
            }
            refuseUndecodable(v, scope);
            SnapshotRetention.Plan plan = plan(v, scope);
            describe(plan, versionsOf(v, scope).size());
            List<Long> deleted = plan.deleted();
            for (int from = 0; from < deleted.size(); from += batch) {
                List<Long> part = deleted.subList(from, Math.min(deleted.size(), from + batch));
                try {
                    fence.delete(scope, part);
                } catch (SnapshotsKafka.Failure e) {
                    throw from == 0 ? e : new SnapshotsKafka.Failure(String.format("%,d of the %,d versions of scope "
                            + "'%s' were deleted before this: %s", from, deleted.size(), scope,
                            e.getMessage().replace(" Nothing was written.", "")));
                }
                if (deleted.size() > batch) {
                    out.printf("  deleted %,d of %,d%n", from + part.size(), deleted.size());
                    out.flush();
                }
            }
            out.printf("scope %s: %s deleted%s%n", scope, versions(deleted.size()), deleted.isEmpty() ? ""
                    : " (tombstones: readers forget them now; the broker's compaction removes them from the log)");
        }
    }

    /**
     * A record of the scope this CLI cannot decode (written with a newer schema?) may be the active version or name a
     * forest: a plan without it could delete what readers need, so the scope is not trimmed.
     */
    private static void refuseUndecodable(SnapshotsKafka.Versions v, String scope) {
        long n = v.undecodable(scope);
        if (n > 0) {
            throw new SnapshotsKafka.Failure(n + " record(s) of scope '" + scope + "' on " + Topics.PARAMS + " could "
                    + "not be decoded (written with a newer schema? use the CLI of the fitting job's release); a plan "
                    + "without them could delete what they name. Nothing was deleted");
        }
    }

    private static String versions(int n) {
        return n == 1 ? "1 version" : String.format("%,d versions", n);
    }

    private SnapshotRetention.Plan plan(SnapshotsKafka.Versions v, String scope) {
        return SnapshotRetention.plan(scope, versionsOf(v, scope), v.rule(), keep);
    }

    private static NavigableMap<Long, SnapshotRetention.Version> versionsOf(SnapshotsKafka.Versions v, String scope) {
        return v.scopes().getOrDefault(scope, new TreeMap<>());
    }

    private void describe(SnapshotRetention.Plan plan, int onTopic) {
        out.printf("scope %s: %,d versions on %s, newest %d; keeping the newest %,d%n", plan.scope(), onTopic,
                Topics.PARAMS, plan.newest(), Math.min(keep, onTopic));
        int shown = 0;
        for (Map.Entry<Long, String> e : plan.held().entrySet()) {
            if (shown++ == 10) {
                out.printf("  and %d more older versions held%n", plan.held().size() - 10);
                break;
            }
            out.println("  holding " + e.getKey() + ": " + e.getValue());
        }
        out.printf("  %s %s%s%n", dryRun ? "would delete" : "deleting", versions(plan.deleted().size()),
                plan.deleted().isEmpty() ? "" : ": " + SnapshotRetention.ranges(plan.deleted(), 8));
        out.flush();
    }
}
