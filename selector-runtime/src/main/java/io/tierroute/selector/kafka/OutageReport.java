package io.tierroute.selector.kafka;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * How {@link ParameterLoader} tells an operator that it has lost the Kafka cluster. While no broker is reachable a
 * consumer's {@code poll()} simply returns nothing, as when nothing is published, and the loader keeps polling: when the
 * broker is back the same consumer goes on from its position. So after each poll the loader asks this report about its
 * consumer's contact ({@link BrokerContact}: the consumer's own metrics, no extra request). After
 * {@link BrokerContact#DEFAULT_THRESHOLD} without contact (also before the first, e.g. nothing listens at the bootstrap
 * address) the status's {@code lastError} says {@code no connection to Kafka at HOST:PORT since <ISO time> (<n> s);
 * serving parameter version V meanwhile}, its seconds refreshed every second while the loader polls, every few seconds
 * while it looks for the topics' partitions; one WARN is
 * logged, repeated every minute while it lasts, and one INFO when contact is back, which clears that
 * {@code lastError} (and only that one: a later problem stays until its own remedy). Loader thread only.
 */
final class OutageReport {

    private static final Logger log = LoggerFactory.getLogger(ParameterLoader.class); // the loader's messages, its logger
    /** How often the outage message of the status is refreshed (its seconds), and how often the log repeats it. */
    private static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long REMIND_NANOS = TimeUnit.MINUTES.toNanos(1);
    /** How the outage line goes on after the contact's description. */
    private static final String SERVING = "; serving parameter version ";

    private final BrokerContact contact;
    private final String scope;
    private final Consumer<String> publish;
    private String outageError;     // the lastError this report set for the current outage
    private long outageSinceMillis; // the last contact before the current outage
    private long publishedNanos;
    private long loggedNanos;

    /**
     * @param contact the loader's consumer's contact with the cluster
     * @param scope   the served scope (for the INFO when contact is back)
     * @param publish sets the status's {@code lastError} to its argument (null: none) and publishes the status with
     *                the contact as it is now; called before the log line, so a reader of both never finds the log ahead
     */
    OutageReport(BrokerContact contact, String scope, Consumer<String> publish) {
        this.contact = contact;
        this.scope = scope;
        this.publish = publish;
    }

    /** {@code lastError} without an outage line's "serving parameter version V meanwhile" (for a start refused). */
    static String withoutServing(String lastError) {
        int at = lastError.lastIndexOf(SERVING);
        return at >= 0 && lastError.endsWith(" meanwhile") ? lastError.substring(0, at) : lastError;
    }

    /**
     * After each poll (and each topic lookup): whether the consumer is still in contact with the cluster.
     *
     * @param lastError      the status's current {@code lastError}
     * @param servedVersion  the parameter version served meanwhile
     */
    void check(String lastError, long servedVersion) {
        boolean changed = contact.check();
        long now = System.nanoTime();
        if (contact.unreachable()) {
            if (changed) {
                outageSinceMillis = contact.unreachableSinceMillis();
            } else if (now - publishedNanos < REFRESH_NANOS) {
                return;
            }
            outageError = contact.describe() + SERVING + servedVersion + " meanwhile";
            publishedNanos = now;
            publish.accept(outageError);
            if (changed || now - loggedNanos >= REMIND_NANOS) {
                loggedNanos = now;
                log.warn("params loader: {}{}", changed ? "" : "still ", outageError);
            }
            return;
        }
        if (!changed) {
            return;
        }
        publish.accept(outageError != null && outageError.equals(lastError) ? null : lastError);
        outageError = null;
        log.info("params loader: Kafka at {} answers again, after {} s without contact (since {}); scope '{}' at "
                        + "version {}", contact.bootstrap(), (System.currentTimeMillis() - outageSinceMillis) / 1000,
                BrokerContact.isoTime(outageSinceMillis), scope, servedVersion);
    }
}
