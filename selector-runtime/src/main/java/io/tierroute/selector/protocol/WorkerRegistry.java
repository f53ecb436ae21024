package io.tierroute.selector.protocol;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Maps worker names (as engines and the HTTP API spell them) to the dense indices that the index,
 * the in-flight tracker and the cost model use. Fixed at start from the configuration, so reads
 * need no lock.
 */
public final class WorkerRegistry {

    private final List<String> names;
    private final Map<String, Integer> indexByName;

    public WorkerRegistry(List<String> workerNames) {
        if (workerNames.isEmpty()) {
            throw new IllegalArgumentException("at least one worker is required");
        }
        Map<String, Integer> map = new HashMap<>();
        for (int i = 0; i < workerNames.size(); i++) {
            String name = workerNames.get(i);
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("worker " + i + " has no name");
            }
            if (map.putIfAbsent(name, i) != null) {
                throw new IllegalArgumentException("worker name '" + name + "' appears twice");
            }
        }
        this.names = Collections.unmodifiableList(new ArrayList<>(workerNames));
        this.indexByName = Map.copyOf(map);
    }

    public int size() {
        return names.size();
    }

    public String name(int worker) {
        return names.get(worker);
    }

    public List<String> names() {
        return names;
    }

    public Optional<Integer> find(String name) {
        return Optional.ofNullable(indexByName.get(name));
    }
}
