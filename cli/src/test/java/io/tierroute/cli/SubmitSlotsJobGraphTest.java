package io.tierroute.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.jobs.FittingJob;
import io.tierroute.jobs.JobSettings;
import io.tierroute.jobs.KafkaWiring;
import io.tierroute.jobs.PublishedParams;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.runtime.jobmanager.scheduler.SlotSharingGroup;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code submit} counts the fitting job's task slots as its {@code --parallelism} ({@link SubmitSlots}), parsed as its
 * main parses the arguments submit gives it ({@link JobSettings#parse}). That
 * holds only while {@link FittingJob} keeps every operator in one slot sharing group at no more than the environment's
 * parallelism: this builds the job's JobGraph as its main does (the Kafka sources and sinks of {@link KafkaWiring},
 * which connect to nothing until the job runs; nothing is executed) and counts the slots Flink's scheduler will ask
 * for, per slot sharing group the largest parallelism of its vertices, summed.
 */
class SubmitSlotsJobGraphTest {

    static Stream<List<String>> jobArgs() {
        return Stream.of(List.of(), List.of("--parallelism", "1"), List.of("--parallelism", "2"),
                List.of("--parallelism=3"), List.of("--job-name", "x", "--parallelism", "7"));
    }

    @ParameterizedTest
    @MethodSource("jobArgs")
    void theSlotsTheJobsGraphNeedsAreWhatSubmitCounts(List<String> jobArgs) {
        // as submit runs it: --bootstrap-servers from its --bootstrap, then the job's arguments
        List<String> args = new ArrayList<>(List.of("--bootstrap-servers", "unused.invalid:9092"));
        args.addAll(jobArgs);
        JobSettings s = JobSettings.parse(args.toArray(String[]::new));
        int counted = s.parallelism(); // what submit counts
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(KafkaWiring.configuration(s));
        // PublishedParams.NONE: the real one reads tierroute.params, and changes no operator
        new FittingJob(KafkaWiring.sources(s), KafkaWiring.paramsSink(s), KafkaWiring.deadLetterSink(s), s,
                PublishedParams.NONE).build(env);
        JobGraph graph = env.getStreamGraph().getJobGraph();

        assertThat(graph.getNumberOfVertices()).as("vertices").isGreaterThan(1);
        assertThat(graph.getVertices()).allSatisfy(v -> assertThat(v.getParallelism()).as(v.getName()).isPositive());
        assertThat(maxParallelism(graph)).as("the job runs at its --parallelism").isEqualTo(counted);
        assertThat(slotsNeeded(graph)).as("slots of %s; groups %s", jobArgs, groups(graph)).isEqualTo(counted);
    }

    @Test
    void aSecondSlotSharingGroupAddsItsSlots() {
        // what the count above would catch: an operator moved out of the default group needs slots of its own
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(3);
        // source at 1 and sink at 3 in the default group, the map at 2 in its own (else its successors inherit it)
        env.fromData(1, 2, 3).map((MapFunction<Integer, Integer>) i -> i).slotSharingGroup("own").setParallelism(2)
                .sinkTo(new DiscardingSink<>()).slotSharingGroup("default");
        JobGraph graph = env.getStreamGraph().getJobGraph();
        assertThat(graph.getSlotSharingGroups()).hasSize(2);
        assertThat(slotsNeeded(graph)).isEqualTo(3 + 2);
    }

    /** Per slot sharing group the largest parallelism of its vertices, summed; a vertex in no group counts alone. */
    static int slotsNeeded(JobGraph graph) {
        Map<SlotSharingGroup, Integer> byGroup = new HashMap<>();
        int alone = 0;
        for (JobVertex v : graph.getVertices()) {
            if (v.getSlotSharingGroup() == null) {
                alone += v.getParallelism();
            } else {
                byGroup.merge(v.getSlotSharingGroup(), v.getParallelism(), Math::max);
            }
        }
        return alone + byGroup.values().stream().mapToInt(Integer::intValue).sum();
    }

    private static int maxParallelism(JobGraph graph) {
        int max = 0;
        for (JobVertex v : graph.getVertices()) {
            max = Math.max(max, v.getParallelism());
        }
        return max;
    }

    /** "group: vertex (parallelism), ..." for an assertion's message. */
    private static String groups(JobGraph graph) {
        List<String> out = new ArrayList<>();
        for (JobVertex v : graph.getVertices()) {
            out.add(v.getSlotSharingGroup() + ": " + v.getName() + " (" + v.getParallelism() + ")");
        }
        return String.join(", ", out);
    }
}
