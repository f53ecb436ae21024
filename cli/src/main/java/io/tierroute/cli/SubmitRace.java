package io.tierroute.cli;

import io.tierroute.cli.SingleWriterGuard.Candidate;
import io.tierroute.cli.SingleWriterGuard.LiveJob;
import io.tierroute.cli.SingleWriterGuard.Objection;
import io.tierroute.deploy.local.FlinkRestClient.JobSummary;

import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * Which of two racing submits keeps its job. The guard's check before the upload cannot be atomic (Flink's REST API
 * has no compare-and-set): two submits at once both see no writer and both submit. So each, once its own job is
 * listed, looks again and keeps its job only if no live job <em>ranked before it</em> is one the guard would refuse.
 * The rank is Flink's start-time (stamped at submission), then the job id: a total order every submit sees alike, so
 * of two writers exactly the first stays. A job ranked after ours is not ours to judge: it yields in its own check
 * (it was listed after ours, so it sees ours). That holds between submits that both run this check.
 */
final class SubmitRace {

    /** Earlier start-time first; on a tie the smaller job id. A job Flink gives no start-time (-1) ranks first. */
    static final Comparator<JobSummary> RANK = Comparator.comparingLong(JobSummary::startTime)
            .thenComparing(JobSummary::id);

    /** What our just-submitted job does. */
    sealed interface Verdict permits Keep, Yield, Wait {}

    /** No job ranked before ours writes the topic on this Kafka: ours is the writer. */
    record Keep() implements Verdict {}

    /** A job ranked before ours is one the guard refuses beside it: ours is cancelled. */
    record Yield(Objection to) implements Verdict {}

    /** A job ranked before ours cannot be read yet (a racing submit's job is INITIALIZING at first): look again. */
    record Wait(Objection on) implements Verdict {}

    private SubmitRace() {}

    static boolean before(JobSummary a, JobSummary b) {
        return RANK.compare(a, b) < 0;
    }

    /**
     * The verdict on {@code own}, submitted as {@code c}, among the listed {@code jobs} (ours among them or not; jobs
     * ranked after ours may be left out, they do not count). A refusal of a job ranked before ours makes ours yield,
     * except one only for settings that cannot be read yet, which makes it wait (and, should it last, the caller yields).
     */
    static Verdict verdict(JobSummary own, List<LiveJob> jobs, Candidate c, Set<String> ignored, String flinkUrl) {
        if (!SingleWriterGuard.alive(own)) {
            return new Keep(); // ended already: nothing to cancel, and the caller reports how it ended
        }
        List<LiveJob> earlier = jobs.stream()
                .filter(j -> !j.job().id().equals(own.id()) && before(j.job(), own)).toList();
        return SingleWriterGuard.objection(earlier, c, ignored, flinkUrl)
                .<Verdict>map(o -> o.unreadable() ? new Wait(o) : new Yield(o))
                .orElseGet(Keep::new);
    }
}
