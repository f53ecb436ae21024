package io.tierroute.cli;

import io.tierroute.deploy.local.FlinkRestClient;
import io.tierroute.jobs.JobSettings;
import picocli.CommandLine;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What {@code submit} tells an operator beside a refusal or a failure it did not cause itself: where a misplaced job
 * flag goes, a transaction timeout the broker refuses, a state backend the cluster lacks, a job left running.
 */
final class SubmitAdvice {

    private SubmitAdvice() {
    }

    /**
     * Why the job's {@code --transaction-timeout} (given among {@code jobArgs}, else the job's default) cannot work on a
     * broker whose {@code transaction.max.timeout.ms} is {@code brokerMaxMs}: the params sink's producer would be refused
     * at its first checkpoint, and the job restart until it gives up. Empty when it fits, or when either is unknown (a
     * value the job cannot parse is the job's to report).
     */
    static Optional<String> transactionTimeoutRefusal(List<String> jobArgs, OptionalLong brokerMaxMs) {
        if (brokerMaxMs.isEmpty()) {
            return Optional.empty();
        }
        String given = null;
        for (int i = 0; i < jobArgs.size(); i++) {
            String a = jobArgs.get(i);
            if (a.startsWith("--transaction-timeout=")) {
                given = a.substring("--transaction-timeout=".length());
            } else if (a.equals("--transaction-timeout") && i + 1 < jobArgs.size()) {
                given = jobArgs.get(i + 1);
            }
        }
        Duration timeout;
        try {
            timeout = given == null ? JobSettings.builder().build().transactionTimeout() : JobSettings.parseDuration(given);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        long max = brokerMaxMs.getAsLong();
        if (timeout.toMillis() <= max) {
            return Optional.empty();
        }
        return Optional.of("the job's --transaction-timeout " + (given == null ? timeout + " (its default)" : given)
                + " is longer than the broker's transaction.max.timeout.ms, " + max + " ms (" + Duration.ofMillis(max)
                + "): its params producer would be refused at the first checkpoint; give the job a shorter one, e.g. "
                + "-- --transaction-timeout " + Duration.ofMillis(max).toMinutes() + "m, or raise the broker's");
    }

    /** For an option submit does not know that is a flag of the job: where job flags go. Null otherwise. */
    static String jobFlagHint(CommandLine.ParameterException e) {
        if (!(e instanceof CommandLine.UnmatchedArgumentException u) || u.getUnmatched().isEmpty()) {
            return null;
        }
        String flag = u.getUnmatched().get(0).split("=", 2)[0];
        if (flag.equals("--bootstrap-servers")) { // the one job flag submit sets itself
            return "give the Kafka address with --bootstrap: submit passes it to the job as --bootstrap-servers";
        }
        boolean jobs = flag.startsWith("--") && JobSettings.usage().lines().anyMatch(l -> l.startsWith("  " + flag + " "));
        return jobs ? "'" + flag + "' is a flag of the job: give it after '--', e.g. tierroute submit --flink URL "
                + "--bootstrap HOST:PORT -- " + flag + " VALUE" : null;
    }

    /** Flink's class of the RocksDB backend, which a cluster without it fails to load. */
    static final String ROCKSDB_FACTORY = "EmbeddedRocksDBStateBackendFactory";

    /** A line on what to do about a failure Flink reports in its own terms; empty when there is none to add. */
    static String hint(String message) {
        if (message != null && message.contains("ClassNotFoundException") && message.contains(ROCKSDB_FACTORY)) {
            return "\nthis cluster has no RocksDB state backend: 'tierroute cluster up' runs on the project's jars, not a "
                    + "Flink distribution; give the job -- --state-backend hashmap here, rocksdb on a cluster from a Flink distribution";
        }
        return "";
    }

    /**
     * What became of a job {@code --wait} gave up on: one that has not ended stays on the cluster (a retry would be
     * refused as a second writer), so the operator hears where it is and how to stop it. Empty when it ended.
     */
    static String leftOnTheCluster(FlinkRestClient rest, String id) {
        String state;
        try {
            state = rest.job(id).state();
        } catch (FlinkRestClient.FlinkRestException e) {
            return "";
        }
        if (List.of("FAILED", "CANCELED", "FINISHED").contains(state)) {
            return "";
        }
        // Stop-with-savepoint needs every task running; a job restarting or still deploying can only be cancelled.
        String stop = state.equals("RUNNING")
                ? "stop it with 'tierroute submit --flink " + rest.base() + " --savepoint DIR --job-id " + id
                        + "' or cancel it in the web UI"
                : "cancel it in the web UI (or: curl -X PATCH '" + rest.base() + "/jobs/" + id + "?mode=cancel')";
        return "\nthe job is left on the cluster, " + state + ": watch it at " + rest.base() + "/#/job/running/" + id
                + "/overview; " + stop + " before submitting again";
    }
}
