package io.tierroute.selector.kafka;

import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.snapshot.ActivationRule;
import io.tierroute.selector.kafka.ParameterLoader.ScopeStatus;
import io.tierroute.selector.kafka.ParameterLoader.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the {@link ParameterLoader}'s thread shows the others: an immutable {@link Status}, built by the loader thread
 * and published whole through a volatile field, so a reader never sees half of an update. Here too is what only the
 * status carries (the last problem, the start-up time, the history resets), kept by the loader thread, which publishes
 * after each change. The rule and the served scope's records are read as the status is built, on the loader thread.
 */
final class LoaderStatus {

    private static final Logger log = LoggerFactory.getLogger(ParameterLoader.class); // the loader's messages, its logger

    private final String scope;
    private final ServedScopeRecords records;
    private final BrokerContact contact;
    private volatile Status status;
    private String lastError;          // loader thread
    private String scopeUnknownError;  // loader thread: the lastError saying the topics never named the served scope
    private long startupMillis = -1;   // loader thread
    private final LongAdder historyResets = new LongAdder();
    private volatile String lastHistoryReset;

    /**
     * @param servedVersion the version in the store as the loader is made (the status's applied version until the
     *                      first publication)
     * @param records       the served scope's records (accepted versions indexed, the newest rejected one)
     * @param contact       the consumer's contact with the cluster
     */
    LoaderStatus(String scope, long servedVersion, ServedScopeRecords records, BrokerContact contact) {
        this.scope = scope;
        this.records = records;
        this.contact = contact;
        this.status = new Status(false, scope, servedVersion, -1, null, Map.of(), null, 0, null);
    }

    /** The status last published (any thread). */
    Status current() {
        return status;
    }

    /** The last problem, or null. */
    String lastError() {
        return lastError;
    }

    /** The last problem is now {@code error} (null: none); the next publication shows it. */
    void setLastError(String error) {
        lastError = error;
    }

    /** The loader caught up for the first time, {@code millis} after its start. */
    void startedUp(long millis) {
        startupMillis = millis;
    }

    /** The history read was found gone ({@code what}: ISO time and what was found): counted, shown when published. */
    void historyReset(String what) {
        lastHistoryReset = what;
        historyResets.increment();
    }

    /** Times the history read was found gone (any thread). */
    long historyResets() {
        return historyResets.sum();
    }

    /**
     * Publishes the status. While a session catches up (after a restart or a reset) its rule holds part of the history:
     * the scopes shown stay those last published, which go with the set still served.
     *
     * @param loaderReady    whether the loader has reported ready
     * @param caughtUp       whether this session has read up to the end offsets at its start
     * @param appliedVersion the version in the store (0: none applied yet)
     * @param rule           this session's rule
     */
    void publish(boolean loaderReady, boolean caughtUp, long appliedVersion, ActivationRule rule) {
        Status was = status;
        Map<String, ScopeStatus> scopes = caughtUp || was.scopes().isEmpty() ? scopeStatuses(rule) : was.scopes();
        status = new Status(loaderReady || startupMillis >= 0, scope, appliedVersion, startupMillis, lastError, scopes,
                contact.unreachableSinceMillis(), historyResets.sum(), lastHistoryReset);
    }

    private Map<String, ScopeStatus> scopeStatuses(ActivationRule rule) {
        Map<String, ScopeStatus> scopes = new TreeMap<>();
        for (String s : rule.scopes()) {
            OptionalLong v = rule.activeVersion(s);
            Optional<SnapshotControl> c = rule.control(s);
            boolean pinned = rule.isPinned(s);
            scopes.put(s, new ScopeStatus(s, v.isPresent() ? v.getAsLong() : null, pinned,
                    pinned ? c.get().getVersion() : null, rule.controlSequence(s),
                    s.equals(scope) ? records.indexed() : -1,
                    s.equals(scope) ? records.newestRejectedAboveAccepted() : null));
        }
        return Collections.unmodifiableMap(scopes);
    }

    /** The last problem is now {@code error}: published with the contact as it is now, the scopes as last published. */
    void publishProblem(String error) {
        lastError = error;
        Status s = status;
        status = new Status(s.ready(), s.servedScope(), s.appliedVersion(), s.startupMillis(), lastError, s.scopes(),
                contact.unreachableSinceMillis(), s.historyResets(), s.lastHistoryReset());
    }

    /**
     * A served scope the topics never named, while they name others, is most likely a misspelt {@code kafka.scope}: the
     * selector would serve its configured parameters for good without a word. So after a catch-up from the beginning
     * that found none of its records, the last problem says so (and a WARN) until one is read
     * ({@link #servedScopeNamed}).
     *
     * @param fromTheBeginning the first catch-up, or the first after a history reset
     * @param appliedVersion   the version in the store (0: none applied yet)
     */
    void warnIfScopeUnknown(boolean fromTheBeginning, ActivationRule rule, long appliedVersion) {
        List<String> known = rule.scopes().stream().sorted().toList();
        if (fromTheBeginning && !known.isEmpty() && !known.contains(scope)) {
            scopeUnknownError = "no snapshot or control record of scope '" + scope + "' on " + Topics.PARAMS + " / "
                    + Topics.CONTROL + ", which hold scopes " + known + "; serving "
                    + (appliedVersion == 0 ? "the configured parameters" : "parameter version " + appliedVersion)
                    + " until one is published (is kafka.scope spelt right?)";
            lastError = scopeUnknownError;
            log.warn("params loader: {}", lastError);
        }
    }

    /** A record of the served scope was read: the warning that the topics never named it no longer holds. */
    void servedScopeNamed() {
        if (scopeUnknownError != null) {
            if (scopeUnknownError.equals(lastError)) {
                lastError = null; // only that message: a later problem stays until its own remedy
            }
            scopeUnknownError = null;
        }
    }
}
