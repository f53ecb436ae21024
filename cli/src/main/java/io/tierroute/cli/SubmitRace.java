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
 *
 * <p>A first listing that shows ours may not show yet a job ranked before it (same start-time, smaller id, listed a
 * moment later): both would keep. So a Keep counts only from a listing sent at least {@link #CONFIRM_NANOS} after
 * the first listing that showed ours ({@link #confirmed}). A job ranked before ours has a start-time no later than
 * ours, so it is listed by then unless Flink took {@code CONFIRM_NANOS} longer to list it than ours; in Flink the
 * dispatcher stamps the start-time and lists the job in one step, so that lag is milliseconds.
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

    /** A Keep counts from a listing sent this long after ours was first listed: one poll interval of the check. */
    static final long CONFIRM_NANOS = 250_000_000L;

    /**
     * States of a job on its way out that is no rival: a job being cancelled (e.g. by its own submit, yielding) must
     * not be named as the job that stays. FAILING is not among them: Flink may restart such a job.
     */
    private static final Set<String> ENDING = Set.of("CANCELLING");

    private SubmitRace() {}

    static boolean before(JobSummary a, JobSummary b) {
        return RANK.compare(a, b) < 0;
    }

    /** {@code j} is a live job, not being cancelled, ranked before {@code own}: one whose writes could beat ours. */
    static boolean rival(JobSummary j, JobSummary own) {
        return !j.id().equals(own.id()) && SingleWriterGuard.alive(j) && !ENDING.contains(j.state()) && before(j, own);
    }

    /** A Keep from a listing sent at {@code listingSentNanos} is final (ours was first listed at {@code ownListedNanos}). */
    static boolean confirmed(long ownListedNanos, long listingSentNanos) {
        return listingSentNanos - ownListedNanos >= CONFIRM_NANOS;
    }

    /**
     * The verdict on {@code own}, submitted as {@code c}, among the listed {@code jobs} (ours among them or not; jobs
     * ranked after ours may be left out, they do not count). A refusal of a job ranked before ours makes ours yield,
     * except one only for settings that cannot be read yet, which makes it wait (and, should it last, the caller yields).
     * A Keep is final only from a listing {@link #confirmed} late enough.
     */
    static Verdict verdict(JobSummary own, List<LiveJob> jobs, Candidate c, Set<String> ignored, String flinkUrl) {
        if (!SingleWriterGuard.alive(own)) {
            return new Keep(); // ended already: nothing to cancel, and the caller reports how it ended
        }
        List<LiveJob> earlier = jobs.stream().filter(j -> rival(j.job(), own)).toList();
        return SingleWriterGuard.objection(earlier, c, ignored, flinkUrl)
                .<Verdict>map(o -> o.unreadable() ? new Wait(o) : new Yield(o))
                .orElseGet(Keep::new);
    }
}
