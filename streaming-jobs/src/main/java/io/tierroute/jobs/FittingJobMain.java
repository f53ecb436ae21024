package io.tierroute.jobs;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Entry point of the job jar: parses the arguments ({@link JobSettings#parse}), wires Kafka
 * ({@link KafkaWiring}) and runs {@link FittingJob}. A bad argument fails it with a message naming
 * the flag; {@code --help} lists every flag with its default.
 */
public final class FittingJobMain {
    private FittingJobMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
            System.out.print(JobSettings.usage());
            return;
        }
        JobSettings settings;
        try {
            settings = JobSettings.parse(args);
        } catch (IllegalArgumentException e) {
            // Thrown, not System.exit: inside a Flink JobManager an exit would take the cluster down, and
            // the REST answer `tierroute submit` prints carries this message.
            System.err.print(JobSettings.usage());
            throw new IllegalArgumentException("tierroute fitting job: " + e.getMessage()
                + " (run with --help for every flag)", e);
        }
        StreamExecutionEnvironment env =
            StreamExecutionEnvironment.getExecutionEnvironment(KafkaWiring.configuration(settings));
        new FittingJob(KafkaWiring.sources(settings), KafkaWiring.paramsSink(settings),
            KafkaWiring.deadLetterSink(settings), settings, KafkaWiring.publishedVersions(settings)).build(env);
        env.execute(settings.jobName());
    }
}
