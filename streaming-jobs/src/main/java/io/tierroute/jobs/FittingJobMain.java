package io.tierroute.jobs;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Entry point of the job jar: parses the arguments ({@link JobSettings#parse}), wires Kafka
 * ({@link KafkaWiring}) and runs {@link FittingJob}. A bad argument fails it with a message naming
 * the flag; {@code --help} lists every flag with its default.
 */
public final class FittingJobMain {
    /** How a flag error points to the flags; {@code tierroute submit} replaces it (Flink's REST API runs no --help). */
    public static final String HELP_HINT = "(run with --help for every flag)";

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
            String message = "tierroute fitting job: " + e.getMessage() + " " + HELP_HINT;
            if (launchedByJava()) {
                System.err.println(message);
                System.exit(2);
            }
            // Thrown, not System.exit: inside a Flink JobManager an exit would take the cluster down, and
            // the REST answer `tierroute submit` prints carries this message (as the innermost cause: no chained e).
            throw new IllegalArgumentException(message);
        }
        StreamExecutionEnvironment env =
            StreamExecutionEnvironment.getExecutionEnvironment(KafkaWiring.configuration(settings));
        new FittingJob(KafkaWiring.sources(settings), KafkaWiring.paramsSink(settings),
            KafkaWiring.deadLetterSink(settings), settings, KafkaWiring.publishedParams(settings)).build(env);
        env.execute(settings.jobName());
    }

    /**
     * Whether the JVM's launcher called this main ({@code java -cp ... FittingJobMain}), where a bad flag is a
     * one-line usage error; Flink (JobManager, {@code flink run}) calls it by reflection from its own frames.
     */
    private static boolean launchedByJava() {
        StackTraceElement[] stack = new Throwable().getStackTrace();
        return stack[stack.length - 1].getClassName().equals(FittingJobMain.class.getName());
    }
}
