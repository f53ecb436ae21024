package io.tierroute.deploy.kafka;

import java.util.ArrayList;
import java.util.List;

/**
 * What went wrong with a Kafka client, in words an operator can act on. A client that cannot be built
 * throws "Failed to construct kafka consumer" and keeps the reason (an unresolvable host, a missing
 * JAAS entry, an unreadable truststore) in its causes; printing the top message alone hides it.
 */
public final class KafkaClientErrors {

    private KafkaClientErrors() {
    }

    /** The messages down {@code e}'s cause chain, each once, joined by ": " (the class name where one has none). */
    public static String describe(Throwable e) {
        List<String> parts = new ArrayList<>();
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String m = t.getMessage() == null || t.getMessage().isBlank() ? t.getClass().getSimpleName() : t.getMessage();
            // A wrapper often repeats its cause ("KafkaException: ConfigException: …"): keep each text once.
            if (parts.stream().noneMatch(p -> p.contains(m))) {
                parts.add(m);
            }
            if (parts.size() == 4) {
                break;
            }
        }
        return String.join(": ", parts);
    }
}
