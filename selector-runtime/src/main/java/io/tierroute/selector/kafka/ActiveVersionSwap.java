package io.tierroute.selector.kafka;

import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.snapshot.ActivationRule;
import io.tierroute.selector.kafka.ParameterLoader.BadReason;
import io.tierroute.selector.kafka.SnapshotRecordReader.Where;
import io.tierroute.selector.logging.LogLimiter;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

/**
 * Keeps the {@link ParameterStore} on the served scope's version the {@link ActivationRule} makes active. After each
 * poll (once caught up) the loader asks for it and, when it differs from the applied one, this reads that snapshot in
 * full ({@link ActiveSnapshotReader}), converts it ({@link SnapshotConverter}) and swaps it in
 * ({@link ParameterStore#activate}). Pins, rollbacks, the first activation and version jumps are logged at INFO; a
 * routine swap (the next version, nothing pinned) at most once a minute, with how many there were ({@link SwapLog}).
 *
 * <p><b>Models by reference.</b> A snapshot may name the record that carries its quantile forest instead of carrying
 * it; {@link ActiveSnapshotReader} finds that model. A snapshot whose carrier is gone, or carries no model, is refused
 * like one that cannot be used.
 *
 * <p><b>Versions that fail.</b> A version that failed to convert is a bad record ({@link BadRecordReport}), not retried
 * until it is published again (or the loader restarts); the rule's choice without it is applied (the newest version
 * below it, say), else the active set stays. One unusable version with a high number (a writer other than the job)
 * held every replica on its set while good versions below it arrived, and a replica starting then served the
 * configured defaults. A version whose re-read failed for a transient reason (a timeout) is retried with back-off
 * ({@code tierroute_params_reread_failures_total}), so a rollback pin is never abandoned because the broker hiccupped
 * once.
 *
 * <p><b>After a history reset</b> the new history's version is applied even when its number is lower than, or equal
 * to, the one served (the same number may now be other parameters).
 *
 * <p>Loader thread only, but for the counts (any thread).
 */
final class ActiveVersionSwap {

    private static final Logger log = LoggerFactory.getLogger(ParameterLoader.class); // the loader's messages, its logger

    private final String scope;
    private final ParameterStore store;
    private final SnapshotConverter converter;
    private final RhoAging rhoAging;
    private final ServedScopeRecords records;
    private final ActiveSnapshotReader activeReader;                       // active version → whole snapshot
    private final SwapLog swapLog;
    private final LoaderStatus status;
    private final BadRecordReport bad;
    private final LogLimiter badLog;
    /** The workers without a configuration whose ρ the last swap ignored, as last said in a WARN. */
    private Set<String> unknownRhoWorkersSaid = Set.of();
    private final BooleanSupplier running;
    private final Runnable publish;

    private long appliedVersion;
    /**
     * Versions given up (they cannot be used), skipped when the rule picks one: its choice among the rest is applied
     * instead. Not bounded apart from the rule's own versions (one entry per accepted version at most): forgetting one
     * would have the rule pick it again, re-read for ever. Cleared by a new session, a version by its republication.
     */
    private final Set<Long> givenUp = new HashSet<>();
    /** Versions given up in a row within one {@link #activateIfChanged} before the next poll goes on. */
    static final int PASSES_PER_CALL = 8;
    private boolean giveUpsPending;
    private long retryVersion = -1;  // a version whose re-read failed transiently, retried at retryAtNanos
    private long retryAtNanos;
    private long retryBackoffMs = RestartBackoff.MIN_MS;
    private boolean appliedFromGoneHistory; // the applied set came from a history since found gone

    private final LongAdder swaps = new LongAdder();
    private final LongAdder rereadFailures = new LongAdder();
    private final LongAdder forestsRefused = new LongAdder();
    private final AtomicLong lastSwapNanos = new AtomicLong(-1);

    /**
     * @param store        the store to swap sets into
     * @param converter    snapshot → parameter set for this selector's workers
     * @param rhoAging     ages out the converted set's ρ that are already too old (a rollback, a restart after the job)
     * @param records      the served scope's records (where an accepted version was read, the carriers)
     * @param activeReader reads the active version's whole snapshot
     * @param status       takes the last problem of a re-read that failed transiently
     * @param bad          reports a version given up
     * @param badLog       limits the WARNs (shared with the loader's other problem lines)
     * @param running      false once the loader closes: a read in progress applies nothing
     * @param publish      publishes the whole status
     */
    ActiveVersionSwap(String scope, ParameterStore store, SnapshotConverter converter, RhoAging rhoAging,
            ServedScopeRecords records, ActiveSnapshotReader activeReader, LoaderStatus status, BadRecordReport bad, LogLimiter badLog,
            BooleanSupplier running, Runnable publish) {
        this.scope = scope;
        this.swapLog = new SwapLog(scope);
        this.store = store;
        this.converter = converter;
        this.rhoAging = rhoAging;
        this.records = records;
        this.activeReader = activeReader;
        this.status = status;
        this.bad = bad;
        this.badLog = badLog;
        this.running = running;
        this.publish = publish;
    }

    /**
     * Swaps {@code rule}'s active version of the served scope in when it is not the applied one; a version given up is
     * skipped, the rule's choice among the rest applied instead (not a pinned one: a pin keeps what is served).
     */
    void activateIfChanged(ActivationRule rule) {
        // The rule's next choice after a version given up may be usable: asked again at once, a bounded number of times
        // per call (each pass re-reads a record); the loader's next poll goes on (retryDue) when they all failed.
        giveUpsPending = false;
        for (int pass = 0; pass < PASSES_PER_CALL; pass++) {
            if (!tryOnceGaveUp(rule)) {
                return;
            }
        }
        giveUpsPending = true;
    }

    /** Whether the last {@link #activateIfChanged} gave up as many versions as a call may: the rule's next is untried. */
    boolean giveUpsPending() {
        return giveUpsPending;
    }

    /** One attempt at the rule's choice; true when it gave that version up (another choice may follow). */
    private boolean tryOnceGaveUp(ActivationRule rule) {
        OptionalLong want = rule.activeVersion(scope, v -> !givenUp.contains(v));
        // After a reset the same number may be other parameters: the new history's version is applied whatever it is.
        boolean applied = want.isPresent() && want.getAsLong() == appliedVersion && !appliedFromGoneHistory;
        if (want.isEmpty() || applied) {
            retryVersion = -1;
            return false;
        }
        long version = want.getAsLong();
        if (version == retryVersion && System.nanoTime() - retryAtNanos < 0) {
            return false; // waiting to retry a re-read that failed transiently
        }
        long begin = System.nanoTime();
        ActiveSnapshotReader.Outcome read = activeReader.read(version);
        if (!running.getAsBoolean() || read instanceof ActiveSnapshotReader.Stopped) {
            return false; // closed during a read back: nothing is applied
        }
        if (read instanceof ActiveSnapshotReader.Retry retry) {
            retryLater(version, retry.what());
            return false;
        }
        if (read instanceof ActiveSnapshotReader.Refused refused) {
            giveUp(version, refused.reason(), refused.message());
            return true;
        }
        ParameterSnapshot snapshot = ((ActiveSnapshotReader.Read) read).snapshot();
        Where where = records.acceptedAt(version);
        String source = Topics.PARAMS + (where == null ? "" : "@" + where.partition() + ":" + where.offset());
        TreeSet<String> unknown = new TreeSet<>();
        ParameterSet next;
        try {
            SnapshotConverter.Conversion c = converter.convertKeepingModel(snapshot, source, unknown, store.current());
            next = rhoAging.age(c.parameters());
            if (c.forestRefused() != null) {
                forestsRefused.increment();
                if (badLog.allow()) {
                    log.warn("params loader: version {} of scope '{}' applied with the output model in use ({}): {}",
                            version, scope, next.outputModel() == null ? "none"
                                    : next.outputModelVersion() == 0 ? "from the configuration"
                                    : "of version " + next.outputModelVersion(), c.forestRefused());
                }
            }
        } catch (SnapshotConverter.UnusableSnapshotException e) {
            giveUp(version, BadReason.UNUSABLE, "version " + version + " of scope '" + scope + "' cannot be used: "
                    + e.getMessage());
            return true;
        }
        // Said when the set changes, not at every swap: a replica serving part of a scope's workers would say it once a
        // second (one WARN per publication).
        if (!unknown.isEmpty() && !unknown.equals(unknownRhoWorkersSaid)) {
            log.warn("params loader: version {} of scope '{}' has rho for {} worker(s) this selector does not have, "
                    + "ignored (said again when the set changes): {}", version, scope, unknown.size(),
                    abbreviate(unknown));
        }
        unknownRhoWorkersSaid = unknown;
        if (!store.activate(next)) {
            giveUp(version, BadReason.UNUSABLE, "version " + version + " was refused by the parameter store");
            return true;
        }
        long took = System.nanoTime() - begin;
        lastSwapNanos.set(took);
        swaps.increment();
        long was = appliedVersion;
        boolean afterReset = appliedFromGoneHistory;
        appliedVersion = version;
        appliedFromGoneHistory = false;
        retryVersion = -1;
        records.carriers().applied(snapshot); // versions given up stay so: the rule would pick them again
        // The status right after the swap, before the log line: a reader of both (the demo's status line) should not
        // find the new parameters served under the old status for as long as a log write takes.
        publish.run();
        swapLog.swapped(version, was, afterReset, rule.isPinned(scope), rule.controlSequence(scope), took);
        return false;
    }

    /**
     * A record that activating {@code version} needs could not be re-read for a transient reason: retried with a
     * back-off (1 s, doubling to 30 s while the same version fails), so a rollback pin is never abandoned because the
     * broker hiccupped once. The swap clears it.
     */
    private void retryLater(long version, String what) {
        retryBackoffMs = version == retryVersion ? Math.min(retryBackoffMs * 2, RestartBackoff.MAX_MS) : RestartBackoff.MIN_MS;
        retryVersion = version;
        retryAtNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(retryBackoffMs);
        String lastError = what + " could not be re-read from " + Topics.PARAMS + " (transient); retrying in "
                + retryBackoffMs + " ms";
        status.setLastError(lastError);
        if (badLog.allow()) {
            log.warn("params loader: {}; keeping parameter version {}", lastError, store.current().version());
        }
        publish.run();
        rereadFailures.increment(); // after the status: whoever sees the count sees its lastError
    }

    /**
     * {@code version} cannot be used: a bad record, not tried again until it is published again (or a new session);
     * the next pass applies the rule's choice without it. A re-read of it that failed transiently before is no longer
     * pending, so a republished version's back-off starts at its first step.
     */
    private void giveUp(long version, BadReason reason, String message) {
        retryVersion = -1;
        givenUp.add(version);
        bad.report(Topics.PARAMS, reason, null, message);
    }

    /**
     * Whether a re-read that failed transiently is due to be tried again, or the last call gave up as many versions as
     * it may in a row (the rule's next choice is still to be tried).
     */
    boolean retryDue() {
        return giveUpsPending || retryVersion >= 0 && System.nanoTime() - retryAtNanos >= 0;
    }

    /** A new session reads the topics from the beginning: no version is given up or waiting for a retry. */
    void newSession() {
        givenUp.clear();
        retryVersion = -1;
    }

    /** An accepted record of {@code version} was read: given up before, it is tried again. */
    void republished(long version) {
        givenUp.remove(version); // republished: try it again
    }

    /** The history the applied set came from was found gone: the new history's version is applied whatever it is. */
    void historyGone() {
        appliedFromGoneHistory = true;
    }

    /** Whether the applied set came from a history since found gone (none from the new history applied yet). */
    boolean fromGoneHistory() {
        return appliedFromGoneHistory;
    }

    /** The version in the store (0: none applied yet). */
    long appliedVersion() {
        return appliedVersion;
    }

    long swaps() {
        return swaps.sum();
    }

    /** Versions applied with the output model in use because their own quantile forest was refused. */
    long forestsRefused() {
        return forestsRefused.sum();
    }

    /** Re-reads of an active version that failed for a transient reason. */
    long rereadFailures() {
        return rereadFailures.sum();
    }

    /** Decode + convert + swap time of the last swap, ns, or -1. */
    long lastSwapNanos() {
        return lastSwapNanos.get();
    }

    private static String abbreviate(TreeSet<String> names) {
        List<String> l = new ArrayList<>(names);
        return l.size() <= 8 ? String.join(", ", l) : String.join(", ", l.subList(0, 8)) + ", … (" + l.size() + ")";
    }
}
