package io.tierroute.jobs.fit;

import io.tierroute.fitter.forest.ForestConfig;
import io.tierroute.fitter.forest.OutputRow;
import io.tierroute.fitter.forest.QuantileForestTrainer;
import io.tierroute.schemas.avro.QuantileForestModel;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * full (rejected or not): later records refer to that one rather than carry the model again. In processing-time mode on one background thread per operator
 * instance, which the keyed thread polls: training 20 000 rows × 50 trees takes seconds, and done inline it stalled
 * the subtask and its checkpoints for that long. In event-time mode inline, so the model is a function of the input.
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
    /** In-flight training per scope (not state: lost on a restore, the next forest tick starts another). */
    private final Map<String, Training> running = new HashMap<>();

    ForestTraining(ForestConfig config, int minRows, ValueState<QuantileForestModel> pending,
                   ValueState<Long> pendingCarrier, Counter failures, String threadName) {
        this.config = config;
        this.minRows = minRows;
        this.pending = pending;
        this.pendingCarrier = pendingCarrier;
        this.failures = failures;
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
     * Starts training on the buffered rows in the background (at most one per scope at a time) when there are enough
     * rows and enough new ones since the last training. True when one started: poll for it.
     */
    boolean startInBackground(String scope, ScopeCounters c, ReplayBuffers buffers) throws Exception {
        if (running.containsKey(scope) || !enoughRows(c)) {
            return false;
        }
        List<OutputRow> rows = buffers.outputRows(c);
        if (rows.size() < minRows) {
            return false;
        }
        c.rowsSinceForest = 0;
        long begin = System.nanoTime();
        running.put(scope, new Training(executor.submit(() -> new QuantileForestTrainer(config).fit(rows).model()),
            rows.size(), begin));
        return true;
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

    /** Takes a finished background training's model as the pending one (on the keyed thread). */
    Poll poll(String scope) throws Exception {
        Training t = running.get(scope);
        if (t == null) {
            return Poll.NOTHING_RUNNING; // e.g. restored: the training did not survive, the next forest tick starts another
        }
        if (!t.model.isDone()) {
            return Poll.STILL_RUNNING;
        }
        running.remove(scope);
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
