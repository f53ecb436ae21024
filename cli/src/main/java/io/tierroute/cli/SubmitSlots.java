package io.tierroute.cli;

import io.tierroute.deploy.local.FlinkRestClient;
import io.tierroute.deploy.local.FlinkRestClient.JobSummary;
import io.tierroute.deploy.local.RootCause;
import io.tierroute.deploy.local.TaskManagerSlots;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Whether the Flink cluster has the task slots the fitting job needs, asked before its jar is uploaded. Flink accepts
 * any job and only then looks for slots: one short of them waits up to the slot request timeout (5 min; on a cluster
 * up for longer, each attempt failed within seconds), restarts until its restart strategy gives up, and fails with a
 * NoResourceAvailableException that names neither the slots nor who holds them. The job needs its {@code --parallelism}
 * in slots, as {@code submit} parses its arguments (JobSettings): all its operators share the default slot sharing
 * group, and the largest parallelism among them is that one (the control source runs at 1; SubmitSlotsJobGraphTest).
 */
final class SubmitSlots {

    private SubmitSlots() {
    }

    /**
     * Too few slots for a job that needs {@code needed}: {@code total} when the cluster has fewer in all (the job can
     * never run), else fewer free ({@code text} names the jobs holding the others). {@code text} is the shortage and
     * what would end it, as said after a failure too; {@code refusal} is what submit refuses with before the upload,
     * with the flags that get past it.
     */
    record Shortage(boolean total, String text, String refusal) {}

    /** The shortage on a cluster of {@code taskManagers} running {@code jobs} ({@code GET /jobs/overview}); empty when the slots are free. */
    static Optional<Shortage> shortage(int needed, List<TaskManagerSlots> taskManagers, List<JobSummary> jobs) {
        int total = taskManagers.stream().mapToInt(TaskManagerSlots::slots).sum();
        int free = taskManagers.stream().mapToInt(TaskManagerSlots::free).sum();
        String need = "the job needs " + needed + " task slot" + (needed == 1 ? "" : "s")
                + " (its --parallelism; its operators share slots)";
        if (needed > total) {
            String has = need + "; the cluster has " + total + " slot" + (total == 1 ? "" : "s") + " in total ("
                    + layout(taskManagers) + ")";
            if (total == 0) {
                // Flink on Kubernetes (native) or a YARN session starts TaskManagers when a job asks for slots.
                return Optional.of(new Shortage(true, has + "; start TaskManagers", has + ": a cluster that starts "
                        + "TaskManagers on demand (Flink's native Kubernetes, a YARN session)? pass --no-slot-check; "
                        + "else start TaskManagers"));
            }
            String text = has + "; lower --parallelism (after --) or start more TaskManagers";
            return Optional.of(new Shortage(true, text, text + " (a cluster that starts them on demand: pass "
                    + "--no-slot-check)"));
        }
        if (needed > free) {
            String text = need + "; " + free + " of the cluster's " + total + " slots " + (free == 1 ? "is" : "are")
                    + " free: " + holders(taskManagers, jobs);
            return Optional.of(new Shortage(false, text, text + "; wait until they are free, lower --parallelism (after "
                    + "--), or pass --wait-for-slots to submit anyway and wait up to --wait for them"));
        }
        return Optional.empty();
    }

    /** "1 TaskManager × 2", "2 TaskManagers × 4", "3 TaskManagers: 2 + 2 + 1", "no TaskManager registered". */
    static String layout(List<TaskManagerSlots> taskManagers) {
        int n = taskManagers.size();
        if (n == 0) {
            return "no TaskManager registered";
        }
        List<Integer> slots = taskManagers.stream().map(TaskManagerSlots::slots).toList();
        String tms = n + " TaskManager" + (n == 1 ? "" : "s");
        return slots.stream().distinct().count() == 1 ? tms + " × " + slots.get(0)
                : tms + ": " + String.join(" + ", slots.stream().map(String::valueOf).toList());
    }

    /** "job ID 'NAME' (STATE) holds N, ..." for every job holding slots, as the TaskManagers list them. */
    static String holders(List<TaskManagerSlots> taskManagers, List<JobSummary> jobs) {
        Map<String, Integer> byJob = new LinkedHashMap<>();
        taskManagers.forEach(tm -> tm.byJob().forEach((id, n) -> byJob.merge(id, n, Integer::sum)));
        if (byJob.isEmpty()) {
            return "no job holds the others (a TaskManager may be releasing them)";
        }
        List<String> named = new ArrayList<>();
        byJob.forEach((id, n) -> named.add(jobs.stream().filter(j -> j.id().equals(id)).findFirst()
                .map(j -> "job " + id + " '" + j.name() + "' (" + j.state() + ")").orElse("job " + id) + " holds " + n));
        return String.join(", ", named);
    }

    /**
     * The shortage the cluster shows now, read from it; empty when the slots are free.
     *
     * @throws FlinkRestClient.FlinkRestException when a call fails (e.g. a TaskManager that left between
     *                                            {@code GET /taskmanagers} and its details: HTTP 404)
     */
    static Optional<Shortage> read(FlinkRestClient rest, int needed) {
        var overview = rest.overview();
        // One call when the slots are free; the TaskManagers' details (one call each) only to say who holds them.
        if (overview.slotsTotal() >= needed && overview.slotsAvailable() >= needed) {
            return Optional.empty();
        }
        return shortage(needed, rest.taskManagerSlots(), rest.jobs());
    }

    /**
     * {@link #read}, where a failed call is no reason to refuse the job: it prints a warning saying the slots could
     * not be checked and why to {@code err}, and answers empty (the submit goes on; Flink reports a real shortage).
     */
    static Optional<Shortage> readOrWarn(FlinkRestClient rest, int needed, PrintWriter err) {
        try {
            return read(rest, needed);
        } catch (FlinkRestClient.FlinkRestException e) {
            err.println("tierroute submit: warning: could not check the cluster's task slots (" + e.getMessage()
                    + "); submitting without that check");
            err.flush();
            return Optional.empty();
        }
    }

    /**
     * What a submitted job that did not run was short of, as a line to add to its failure: the shortage the cluster
     * shows with the job's own slots counted free (a restarting job may hold some of them). Only for a job that did
     * not run for want of slots: its root cause is Flink's NoResourceAvailableException, or tasks of it wait for a slot
     * (SCHEDULED). Empty otherwise (e.g. a job that failed on Kafka while other jobs hold slots), or when the
     * cluster cannot be read. The slots it needs are Flink's count from its graph ({@code slotsNeeded}), else
     * {@code needed}, its --parallelism.
     */
    static String afterFailure(FlinkRestClient rest, String jobId, int needed, FlinkRestClient.FlinkRestException failure) {
        if (!(failure instanceof FlinkRestClient.JobNotRunningException f) || !shortOfSlots(f)) {
            return "";
        }
        int slots = f.details().slotsNeeded() > 0 ? f.details().slotsNeeded() : needed;
        if (slots == 0) {
            return "";
        }
        try {
            List<TaskManagerSlots> others = rest.taskManagerSlots().stream().map(tm -> {
                Map<String, Integer> byJob = new LinkedHashMap<>(tm.byJob());
                Integer own = byJob.remove(jobId);
                return new TaskManagerSlots(tm.id(), tm.slots(), tm.free() + (own == null ? 0 : own), byJob);
            }).toList();
            return shortage(slots, others, rest.jobs()).map(s -> "\n" + s.text()).orElse("");
        } catch (FlinkRestClient.FlinkRestException e) {
            return "";
        }
    }

    /** Whether the job did not run for want of task slots: Flink's NoResourceAvailableException, or tasks waiting for one. */
    static boolean shortOfSlots(FlinkRestClient.JobNotRunningException e) {
        return e.rootCause().map(RootCause::noResourceAvailable).orElse(false) || e.details().tasks("SCHEDULED") > 0;
    }

    /**
     * One progress line of a job waiting for its slots: its tasks, the cluster's free slots and the slots the job
     * needs (Flink's count from its graph; left out before Flink lists its vertices).
     */
    static String progress(long seconds, FlinkRestClient.JobDetails d, FlinkRestClient.Overview o) {
        int waiting = d.tasks("SCHEDULED");
        return "  " + seconds + " s: job " + d.state() + ", " + d.tasks("RUNNING") + " of " + d.taskCount()
                + " tasks running" + (waiting == 0 ? "" : ", " + waiting + " waiting for a task slot") + "; "
                + o.slotsAvailable() + " of " + o.slotsTotal() + " slots free"
                + (d.slotsNeeded() == 0 ? "" : ", it needs " + d.slotsNeeded());
    }
}
