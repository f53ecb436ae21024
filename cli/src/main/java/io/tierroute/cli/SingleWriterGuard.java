package io.tierroute.cli;

import io.tierroute.deploy.local.FlinkRestClient.JobSummary;
import io.tierroute.jobs.WriterIdentity;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Whether {@code submit} may start the fitting job: tierroute.params must have a single writer (README), and a
 * job's name says nothing about what it writes, so every live job is judged by the writer identity it publishes
 * ({@link WriterIdentity}, read by {@link LiveJobs}). A job that cannot be judged is a refusal too, unless the
 * user vouches for it by id: a silent pass is exactly the second writer this guard exists to prevent.
 */
final class SingleWriterGuard {

    /** Flink's globally terminal job states; every other state (CREATED, RUNNING, RESTARTING ...) is alive. */
    private static final Set<String> ENDED = Set.of("FINISHED", "CANCELED", "FAILED");

    static final String DEFAULT_JOB_NAME = "tierroute-fitting-job";

    private static final String RUNNING = "RUNNING";

    /** Name of the fitting job's params sink, part of its plan since its first version: marks one that publishes no identity. */
    static final String PARAMS_SINK = "params sink";

    /** The job submit would start: its name, the topic it writes and the Kafka it writes it to. */
    record Candidate(String name, String paramsTopic, String bootstrap) {}

    /**
     * One live job and what Flink's REST API told of it: its global job parameters ({@code params}) and its
     * vertices' names (read only when the parameters hold no identity), or why they could not be read.
     */
    record LiveJob(JobSummary job, Map<String, String> params, List<String> vertexNames, String unreadable) {
        static LiveJob read(JobSummary job, Map<String, String> params, List<String> vertexNames) {
            return new LiveJob(job, Map.copyOf(params), List.copyOf(vertexNames), null);
        }

        static LiveJob unreadable(JobSummary job, String why) {
            return new LiveJob(job, null, List.of(), why.replaceAll("\\s+", " ").strip());
        }

        boolean fittingJob() {
            return params != null && WriterIdentity.FITTING_JOB.equals(params.get(WriterIdentity.ROLE));
        }
    }

    private SingleWriterGuard() {}

    static boolean alive(JobSummary job) {
        return !ENDED.contains(job.state());
    }

    /** The job name the job arguments give ({@code --job-name X} or {@code --job-name=X}), else the job's default. */
    static String jobName(List<String> jobArgs) {
        String name = DEFAULT_JOB_NAME;
        for (int i = 0; i < jobArgs.size(); i++) {
            String a = jobArgs.get(i);
            if (a.equals("--job-name") && i + 1 < jobArgs.size()) {
                name = jobArgs.get(++i);
            } else if (a.startsWith("--job-name=")) {
                name = a.substring("--job-name=".length());
            }
        }
        return name;
    }

    /**
     * A job that stands in the way of a candidate and why (one line). {@code unreadable}: only because its settings
     * could not be read, which may change once it runs (submit's post-submit check waits on such a job).
     */
    record Objection(LiveJob job, String why, boolean unreadable) {}

    /**
     * Why {@code c} must not start next to {@code jobs}, or empty when none of them writes its topic on its Kafka.
     * Refused, in this order: a live job of the same name; a live fitting job whose identity names the same topic
     * on an overlapping bootstrap; a live job that cannot be judged (settings unreadable, a params sink without an
     * identity: a fitting job from before identities, or a fitting job writing the topic on a bootstrap with no broker
     * in common, which may still be the same cluster under other names), unless its id is in {@code ignored}.
     */
    static Optional<String> refusal(List<LiveJob> jobs, Candidate c, Set<String> ignored, String flinkUrl) {
        return objection(jobs, c, ignored, flinkUrl).map(Objection::why);
    }

    /** {@link #refusal}'s job and reason. */
    static Optional<Objection> objection(List<LiveJob> jobs, Candidate c, Set<String> ignored, String flinkUrl) {
        List<LiveJob> live = jobs.stream().filter(j -> alive(j.job())).toList();
        Optional<Objection> why = live.stream().filter(j -> j.job().name().equals(c.name())).findFirst()
                .map(j -> new Objection(j, head(j, flinkUrl) + "; submit starts no second live job of the same name. To "
                        + "upgrade it: " + upgrade(j, flinkUrl), false));
        if (why.isEmpty()) {
            why = live.stream().filter(j -> writesTheSameTopic(j, c)).findFirst()
                    .map(j -> new Objection(j, head(j, flinkUrl) + " and writes " + c.paramsTopic() + " on Kafka "
                            + j.params().get(WriterIdentity.BOOTSTRAP_SERVERS) + "; '" + c.name() + "' would be a second "
                            + "writer of it whatever its name. To upgrade it: " + upgrade(j, flinkUrl), false));
        }
        if (why.isEmpty()) {
            why = live.stream().filter(j -> !ignored.contains(j.job().id())).map(j -> unjudged(j, c.paramsTopic(), c.bootstrap()))
                    .flatMap(Optional::stream).findFirst()
                    .map(u -> new Objection(u.job, head(u.job, flinkUrl) + " and " + u.reason + ", so it may write "
                            + c.paramsTopic() + " on Kafka " + c.bootstrap() + " too. If it does, upgrade it: "
                            + upgrade(u.job, flinkUrl) + "; if it does not, pass --ignore-job " + u.job.job().id(),
                            u.job.unreadable() != null));
        }
        return why;
    }

    private static boolean writesTheSameTopic(LiveJob j, Candidate c) {
        String bootstrap = j.fittingJob() ? j.params().get(WriterIdentity.BOOTSTRAP_SERVERS) : null;
        return bootstrap != null && c.paramsTopic().equals(j.params().get(WriterIdentity.PARAMS_TOPIC))
                && BrokerList.sameCluster(bootstrap, c.bootstrap());
    }

    private record Unjudged(LiveJob job, String reason) {}

    /** Why {@code j} cannot be cleared of writing {@code candidateTopic}, or empty when it can. */
    private static Optional<Unjudged> unjudged(LiveJob j, String candidateTopic, String candidateBootstrap) {
        if (j.unreadable() != null) {
            return Optional.of(new Unjudged(j, "its settings cannot be read (" + j.unreadable() + ")"));
        }
        if (j.fittingJob() && (j.params().get(WriterIdentity.PARAMS_TOPIC) == null
                || j.params().get(WriterIdentity.BOOTSTRAP_SERVERS) == null)) {
            return Optional.of(new Unjudged(j, "it is a fitting job whose published settings name no params topic or Kafka"));
        }
        if (j.fittingJob() && candidateTopic.equals(j.params().get(WriterIdentity.PARAMS_TOPIC))) {
            // No broker in common is not proof of another cluster: kafka-0 and kafka-1, a service name and an IP.
            return Optional.of(new Unjudged(j, "it is a fitting job writing " + candidateTopic + " on Kafka "
                    + j.params().get(WriterIdentity.BOOTSTRAP_SERVERS) + ", no broker in common with " + candidateBootstrap
                    + " but perhaps the same cluster"));
        }
        if (!j.fittingJob() && j.vertexNames().stream().anyMatch(v -> v.contains(PARAMS_SINK))) {
            return Optional.of(new Unjudged(j, "it has a '" + PARAMS_SINK + "' but publishes no " + WriterIdentity.ROLE
                    + " job parameters (a fitting job from before they were published)"));
        }
        return Optional.empty();
    }

    private static String head(LiveJob j, String flinkUrl) {
        return "job " + j.job().id() + " '" + j.job().name() + "' is " + j.job().state() + " on " + flinkUrl;
    }

    /**
     * The savepoint-and-restart commands that replace {@code j} rather than run a second writer next to it; a job
     * that is not RUNNING cannot take a savepoint (Flink refuses stop-with-savepoint then), so for it: wait.
     */
    private static String upgrade(LiveJob j, String flinkUrl) {
        String commands = "tierroute submit --flink " + flinkUrl + " --savepoint DIR --job-id " + j.job().id()
                + ", then submit again with --from-savepoint PATH";
        return RUNNING.equals(j.job().state()) ? commands
                : "wait until it is RUNNING (then " + commands + ") or has ended; a " + j.job().state()
                        + " job takes no savepoint";
    }
}
