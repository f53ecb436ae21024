package io.tierroute.cli;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * Which versions of each scope the params topic holds: every one a read decoded, minus those tombstoned after, not
 * only the newest a {@link io.tierroute.dashboards.history.SnapshotHistory} keeps. What the snapshots commands count
 * and name ranges from, so that a window shows as one and not as the end of the topic.
 */
final class VersionsOnTopic {

    private final Map<String, NavigableSet<Long>> scopes = new HashMap<>();

    void published(String scope, long version) {
        scopes.computeIfAbsent(scope, s -> new TreeSet<>()).add(version);
    }

    void deleted(String scope, long version) {
        NavigableSet<Long> versions = scopes.get(scope);
        if (versions != null) {
            versions.remove(version);
        }
    }

    /** The versions of {@code scope} on the topic, lowest first (empty when none). */
    NavigableSet<Long> of(String scope) {
        return Collections.unmodifiableNavigableSet(scopes.getOrDefault(scope, Collections.emptyNavigableSet()));
    }
}
