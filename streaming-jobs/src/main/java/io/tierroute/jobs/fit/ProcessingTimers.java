package io.tierroute.jobs.fit;

import org.apache.flink.streaming.api.TimerService;

/**
 * The processing-time mode's timers of {@link ScopeFitFunction}, noted in {@link ScopeCounters} (0 = none pending):
 * the publication and the forest's training, each at the next multiple of its interval and armed by input only while
 * none is pending (so an idle scope has none), and the poll of a training running in the background.
 */
final class ProcessingTimers {
    /** How often the keyed thread looks for a finished background forest, ms. */
    static final long FOREST_POLL_MS = 250;

    private final long publishIntervalMs;
    private final long forestIntervalMs;
    private final ForestTraining forests;
    private final ReplayBuffers buffers;

    ProcessingTimers(long publishIntervalMs, long forestIntervalMs, ForestTraining forests, ReplayBuffers buffers) {
        this.publishIntervalMs = publishIntervalMs;
        this.forestIntervalMs = forestIntervalMs;
        this.forests = forests;
        this.buffers = buffers;
    }

    /** Arms the publication timer unless one is pending. */
    void armPublish(ScopeCounters c, TimerService timers) {
        if (c.nextPublishMs == 0) {
            c.nextPublishMs = alignedAfter(timers.currentProcessingTime(), publishIntervalMs);
            timers.registerProcessingTimeTimer(c.nextPublishMs);
        }
    }

    /** A joined row arrived: arms the forest's training timer unless one is pending. */
    void armForest(ScopeCounters c, TimerService timers) {
        if (c.nextForestMs == 0) {
            c.nextForestMs = alignedAfter(timers.currentProcessingTime(), forestIntervalMs);
            timers.registerProcessingTimeTimer(c.nextForestMs);
        }
    }

    /**
     * The forest's timers firing at {@code timestamp}, if any: the training timer starts a training in the background
     * (or queues the scope for the subtask's training thread), the poll timer looks whether it finished (or whether
     * the scope's turn came); either polls again while it runs or waits.
     */
    void onForestTimers(long timestamp, String scope, ScopeCounters c, TimerService timers) throws Exception {
        if (timestamp == c.nextForestMs) {
            c.nextForestMs = 0;
            if (forests.startInBackground(scope, c, buffers)) {
                armForestPoll(c, timers);
            }
        }
        if (timestamp == c.nextForestPollMs) {
            c.nextForestPollMs = 0;
            // A finished model is not marked dirty: it enters the next snapshot that new input triggers.
            if (forests.poll(scope, c, buffers) == ForestTraining.Poll.STILL_RUNNING) {
                armForestPoll(c, timers);
            }
        }
    }

    private static void armForestPoll(ScopeCounters c, TimerService timers) {
        c.nextForestPollMs = timers.currentProcessingTime() + FOREST_POLL_MS;
        timers.registerProcessingTimeTimer(c.nextForestPollMs);
    }

    private static long alignedAfter(long now, long interval) {
        return (now / interval + 1) * interval;
    }
}
