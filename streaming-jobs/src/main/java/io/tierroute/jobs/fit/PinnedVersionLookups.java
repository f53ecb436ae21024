package io.tierroute.jobs.fit;

import io.tierroute.schemas.avro.ParameterSnapshot;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads back from {@code tierroute.params}, on a thread of its own, a version a PIN (or the UNPIN after it) makes
 * active that the job's history no longer keeps (older than {@code --history-versions} accepted versions, or from before
 * a start without state), so that the scope's candidates are gated against the pinned snapshot and carry from it what
 * the fit cannot determine yet, instead of against nothing with DESIGN's defaults. The task thread only starts a read
 * and collects its result: a read scans the whole topic, which must not hold up records or checkpoint barriers. What it
 * finds is kept in keyed state by {@link ActiveVersion}; this class keeps nothing a checkpoint needs (a restore simply
 * reads again).
 */
final class PinnedVersionLookups implements AutoCloseable {
    /** The operator's logger: these lines belong with its other lines about control records. */
    private static final Logger LOG = LoggerFactory.getLogger(ScopeFitFunction.class);
    /** A failed read (broker unreachable, timeout) is tried again after this long. */
    static final long RETRY_AFTER_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** Reads one ACCEPTED version of a scope back from the params topic, with its model; null when it is not there. */
    interface Reader {
        ParameterSnapshot readAccepted(String scope, long version) throws Exception;
    }

    /** One scope's read; its outcome is logged once. */
    private static final class Lookup {
        final long version;
        final Future<ParameterSnapshot> result;
        /** When the read was seen to fail or find nothing (System.nanoTime), else 0. */
        long reportedNanos;

        Lookup(long version, Future<ParameterSnapshot> result) {
            this.version = version;
            this.result = result;
        }
    }

    /** Null when the job was given no way to read the topic (a test's or benchmark's own sinks). */
    private final Reader reader;
    /** In event-time mode a poll waits for the read, so that what a tick publishes does not depend on thread timing. */
    private final boolean await;
    private final Map<String, Lookup> lookups = new HashMap<>();
    private ExecutorService executor;

    PinnedVersionLookups(Reader reader, boolean await) {
        this.reader = reader;
        this.await = await;
    }

    /** Whether a read of {@code version} of {@code scope} is under way (started, not done). */
    boolean reading(String scope, long version) {
        Lookup l = lookups.get(scope);
        return l != null && l.version == version && !l.result.isDone();
    }

    /** Whether a read of {@code version} of {@code scope} is done and found no ACCEPTED record of it. */
    boolean foundNothing(String scope, long version) {
        Lookup l = lookups.get(scope);
        if (l == null || l.version != version || !l.result.isDone() || l.result.isCancelled()) {
            return false;
        }
        try {
            return l.result.get() == null;
        } catch (ExecutionException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Whether the job was given the params topic to read from. */
    boolean canRead() {
        return reader != null;
    }

    /**
     * {@code version} of {@code scope}, with its model, once read; null while it is being read, when the read failed
     * (tried again after {@link #RETRY_AFTER_NANOS}) and when the topic has no ACCEPTED record of it (each logged once).
     * Starts the read unless one of that version is under way or done; waits for it in event-time mode.
     */
    ParameterSnapshot poll(String scope, long version) {
        if (reader == null) {
            return null;
        }
        Lookup l = lookups.get(scope);
        if (l == null || l.version != version || failedLongAgo(l)) {
            if (l != null) {
                l.result.cancel(true); // the pin moved on
            }
            l = new Lookup(version, executor().submit(() -> reader.readAccepted(scope, version)));
            lookups.put(scope, l);
            LOG.info("scope {}: reading version {}, which its control record makes active and the job's history "
                + "does not keep, back from the params topic", scope, version);
        }
        if (!await && !l.result.isDone()) {
            return null;
        }
        try {
            ParameterSnapshot s = await ? l.result.get(10, TimeUnit.MINUTES) : l.result.get();
            if (s != null) {
                lookups.remove(scope); // the caller keeps it in state now
                LOG.info("scope {}: version {} read back from the params topic: candidates are gated against it",
                    scope, version);
                return s;
            }
            report(l, () -> LOG.warn("scope {}: version {}, which its control record makes active, is not an "
                + "ACCEPTED version on the params topic either (deleted by a trim?); the scope has no active version the "
                + "job can gate against until it is", scope, version));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | CancellationException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            report(l, () -> LOG.warn("scope {}: reading version {} back from the params topic failed ({}); "
                + "the scope publishes nothing until a read succeeds (next try in {} s; metric publishesHeldForReadBack)",
                scope, version, cause.toString(), TimeUnit.NANOSECONDS.toSeconds(RETRY_AFTER_NANOS)));
        }
        return null;
    }

    private static void report(Lookup l, Runnable log) {
        if (l.reportedNanos == 0) {
            log.run();
            l.reportedNanos = System.nanoTime() | 1; // never 0
        }
    }

    /** Whether {@code l}'s read failed (not: found nothing) at least {@link #RETRY_AFTER_NANOS} ago. */
    private static boolean failedLongAgo(Lookup l) {
        if (l.reportedNanos == 0 || !l.result.isDone()) {
            return false;
        }
        try {
            l.result.get();
            return false; // it found nothing: a second read would too
        } catch (ExecutionException | CancellationException e) {
            return System.nanoTime() - l.reportedNanos >= RETRY_AFTER_NANOS;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private ExecutorService executor() {
        if (executor == null) {
            executor = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "pinned-version-reader");
                t.setDaemon(true);
                return t;
            });
        }
        return executor;
    }

    @Override
    public void close() {
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
