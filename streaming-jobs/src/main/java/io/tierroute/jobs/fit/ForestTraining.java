package io.tierroute.jobs.fit;

import io.tierroute.fitter.forest.ForestConfig;
import io.tierroute.fitter.forest.OutputRow;
import io.tierroute.fitter.forest.QuantileForestTrainer;
import io.tierroute.schemas.avro.QuantileForestModel;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.metrics.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retrains the current scope's quantile-regression forest on its replay buffer and keeps the result as the pending
 * model (keyed state) until an accepted snapshot carries it, with the version of the first record that carried it in
 * full (rejected or not): later records refer to that one rather than carry the model again. In processing-time mode
 * on one background thread per operator instance, which the keyed thread polls: training 20 000 rows × 50 trees takes
 * seconds, and done inline it stalled the subtask and its checkpoints for that long. The scopes of a subtask take
 * turns on that thread ({@link TrainerTurns}), each copying its rows when its turn comes: one copy at a time, however
 * many scopes tick at once. In event-time mode inline, so the model is a function of the input.
 */
final class ForestTraining implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ForestTraining.class);

    /** What {@link #poll} found. */
    enum Poll { NOTHING_RUNNING, STILL_RUNNING, FINISHED }

    private final ForestConfig config;
    private final int minRows;
    private final ValueState<QuantileForestModel> pending;
    private final ValueState<Long> pendingCarrier;
    private final Counter failures;
    private final ExecutorService executor;
    /**
     * How long the first in line may take to claim the free thread: its poll comes within 250 ms, so only a task thread
     * stalled this long (GC, back-pressure, a synchronous snapshot) lets a scope behind it go first.
     */
    static final long CLAIM_GRACE_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long BEHIND_WARNING_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final long intervalNanos;
    /** Whose turn it is on the one training thread (not state: lost on a restore, as the training is). */
    private final TrainerTurns turns = new TrainerTurns(CLAIM_GRACE_NANOS, System.nanoTime());
    /** The training running or waiting to be collected (the holder's), or null. */
    private Training current;
    private long lastBehindWarningNanos = System.nanoTime() - BEHIND_WARNING_EVERY_NANOS;

    ForestTraining(ForestConfig config, int minRows, long intervalMs, ValueState<QuantileForestModel> pending,
                   ValueState<Long> pendingCarrier, Counter failures, String threadName) {
        this.config = config;
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMs);
        this.minRows = minRows;
        this.pending = pending;
        this.pendingCarrier = pendingCarrier;
        this.failures = failures;
        // At most one task in it at a time: a scope submits only on its turn, after the last one was collected.
        this.executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            t.setPriority(Thread.MIN_PRIORITY);
            return t;
        });
    }

    /**
     * The retrained model no accepted snapshot carries yet, or null. A model over this job's budget that no record has
     * carried yet (restored from the state of a job run with a larger --forest-max-bytes) is dropped: its record could
     * be refused by the producer or the broker, and a refused publish fails the job, whose restore brought the model
     * back, in a loop. One a record did carry (kept pending while the scope is pinned) is only named by later records.
     */
    QuantileForestModel pending() throws Exception {
        QuantileForestModel m = pending.value();
        if (m != null && pendingCarrier.value() == null && QuantileForestTrainer.estimatedBytes(m) > config.maxModelBytes()) {
            LOG.warn("quantile forest of {} bytes (trained under a larger budget) dropped: over this job's "
                + "--forest-max-bytes {}; the next training replaces it", QuantileForestTrainer.estimatedBytes(m),
                config.maxModelBytes());
            pendingKept();
            return null;
        }
        return m;
    }

    /** The version of the record that published the pending model in full, or null while none has. */
    Long pendingCarrier() throws Exception {
        return pendingCarrier.value();
    }

    /** The pending model went out in full in {@code version}'s record. */
    void pendingPublishedIn(long version) throws Exception {
        pendingCarrier.update(version);
    }

    void pendingKept() {
        pending.clear();
        pendingCarrier.clear();
    }

    /** A new pending model: no record has carried it yet. */
    private void newPending(QuantileForestModel model) throws Exception {
        pending.update(model);
        pendingCarrier.clear();
    }

    /**
     * At the scope's forest tick: when there are enough rows and enough new ones since the last training, asks for the
     * training thread ({@link TrainerTurns}); on its turn copies the buffered rows and starts training in the
     * background, else waits in line without a copy. True when it started or waits: poll for it. False with a training
     * of the scope already running or waiting (its poll is armed) or too few rows.
     */
    boolean startInBackground(String scope, ScopeCounters c, ReplayBuffers buffers) throws Exception {
        if (turns.holds(scope) || turns.isWaiting(scope) || !enoughRows(c)) {
            return false;
        }
        return askForTurn(scope, c, buffers);
    }

    /** Asks for the training thread; on the scope's turn starts its training. True unless it has too few rows. */
    private boolean askForTurn(String scope, ScopeCounters c, ReplayBuffers buffers) throws Exception {
        long now = System.nanoTime();
        long waited = turns.waitedNanos(scope, now);
        if (!turns.ask(scope, now)) {
            return true;
        }
        List<OutputRow> rows = buffers.outputRows(c);
        if (rows.size() < minRows) {
            turns.release(scope, now);
            return false;
        }
        warnIfBehind(scope, waited, now);
        c.rowsSinceForest = 0;
        current = new Training(executor.submit(() -> new QuantileForestTrainer(config).fit(rows).model()),
            rows.size(), now);
        return true;
    }

    /** A scope that waited longer than the forest interval for its turn: the subtask trains slower than asked. */
    private void warnIfBehind(String scope, long waitedNanos, long now) {
        if (waitedNanos > intervalNanos && now - lastBehindWarningNanos > BEHIND_WARNING_EVERY_NANOS) {
            lastBehindWarningNanos = now;
            LOG.warn("scope {}: quantile forest training waited {} s for this subtask's training thread, longer than "
                + "--forest-interval ({} s), with {} more scopes waiting: each scope's forest is retrained less often "
                + "than asked; raise --forest-interval or the job's parallelism (logged at most once a minute)",
                scope, waitedNanos / 1_000_000_000, intervalNanos / 1_000_000_000, turns.waitingCount());
        }
    }

    /** Event-time mode: trains on this thread, on the buffered rows (oldest first) with the configured seed. */
    void trainNow(String scope, ScopeCounters c, ReplayBuffers buffers, long tickMs) throws Exception {
        if (!enoughRows(c)) {
            return;
        }
        List<OutputRow> rows = buffers.outputRows(c);
        c.rowsSinceForest = 0;
        long begin = System.nanoTime();
        try {
            newPending(new QuantileForestTrainer(config).fit(rows).model());
            LOG.info("scope {}: quantile forest trained on {} rows in {} ms (event-time tick {})", scope, rows.size(),
                (System.nanoTime() - begin) / 1_000_000, tickMs);
        } catch (RuntimeException e) {
            failures.inc();
            // with its stack: in event-time mode a failure the input does not cause makes histories differ
            LOG.warn("scope {}: quantile forest training on {} rows failed (event-time tick {})", scope, rows.size(),
                tickMs, e);
        }
    }

    /**
     * The poll of a scope's background training (on the keyed thread): takes a finished one's model as the pending
     * one and frees the thread; a scope waiting in line, or out of it with rows still untrained, asks for its turn
     * (and starts on it).
     */
    Poll poll(String scope, ScopeCounters c, ReplayBuffers buffers) throws Exception {
        if (!turns.holds(scope)) {
            // Waiting, or no longer in line: it lost its place (it did not claim the free thread in time, its task
            // thread stalled) or the job was restored. Untrained rows ask (again, at the tail), else nothing runs.
            if (!enoughRows(c)) {
                turns.withdraw(scope);
                return Poll.NOTHING_RUNNING;
            }
            return askForTurn(scope, c, buffers) ? Poll.STILL_RUNNING : Poll.NOTHING_RUNNING;
        }
        Training t = current;
        if (!t.model.isDone()) {
            return Poll.STILL_RUNNING;
        }
        current = null;
        turns.release(scope, System.nanoTime());
        try {
            newPending(t.model.get());
            LOG.info("scope {}: quantile forest retrained on {} rows in {} ms (in the background)", scope, t.rows,
                (System.nanoTime() - t.startNanos) / 1_000_000);
        } catch (ExecutionException e) {
            failures.inc();
            LOG.warn("scope {}: quantile forest training on {} rows failed", scope, t.rows, e.getCause());
        }
        return Poll.FINISHED;
    }

    /** Scopes of this subtask waiting for the training thread: the {@code forestTrainingsWaiting} gauge. */
    int waitingCount() {
        return turns.waitingCount();
    }

    /** Enough rows, and enough new ones since the last training to change the model. */
    private boolean enoughRows(ScopeCounters c) {
        return c.bufferedRows >= minRows && c.rowsSinceForest >= minRows;
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }

    private record Training(Future<QuantileForestModel> model, int rows, long startNanos) {}
}
